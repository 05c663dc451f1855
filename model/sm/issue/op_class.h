// Which execution unit runs an instruction and with which latency class
// (GPGPU-Sim's ptx_opcode_latency_* lists, configured in PipelineConfig).
//
// Decisions, where the hardware or GPGPU-Sim leaves a choice:
// - Control flow (bra, call, ret, exit, trap, brkpt), barriers, fences,
//   vote/activemask/match and moves go to the INT unit with the int_add
//   latency: Volta's branch unit sits beside the integer datapath, and these
//   produce at most a register or predicate at integer speed.
// - Every divide is one op standing for the sequence the compiler emits:
//   int div/rem and fp32 div on the SFU (GPGPU-Sim: "All Div operations are
//   executed on SFU unit"), fp64 div/rcp/sqrt/rsqrt on DP (fp64_div).
// - fp32/fp16 transcendental ops (rcp, sqrt, rsqrt, sin, cos, ex2, lg2,
//   tanh) on the SFU.
// - An op with an f64 type (either type of cvt/set) goes to DP; any other
//   float type (f32, f16, bf16 and their x2 forms) to SP; the rest to INT.
// - ld/st/atom/red/prefetch and shfl go to LDST: shared space (and shfl,
//   which crosses lanes through the shared-memory crossbar) with the
//   shared.latency, every other space with pipeline.mem_latency.
// - With int_units 0 (or dp_units 0) INT (DP) ops run on the SP unit with
//   their own latency class, as GPGPU-Sim 3.x does for Maxwell.
#pragma once

#include <cstdint>

#include "config/gpu_config.h"
#include "ptx/ir.h"
#include "ptx/machine.h"
#include "sm/unit_type.h"

namespace rfsim::sm {


enum class LatClass : uint8_t {
  IntAdd, IntMul, IntMad, IntDiv,
  Fp32Add, Fp32Mul, Fp32Fma, Fp32Div,
  Sfu,
  Fp64Add, Fp64Fma, Fp64Div,
  Shared,  // shared-memory access or shuffle: shared.latency
  Const,   // ld.param / ld.const: a constant-bank operand in SASS: pipeline.const_latency
  Memory,  // global/local/generic access: pipeline.mem_latency
  Count_
};
const char* latClassName(LatClass c);

struct OpClass {
  UnitType unit;
  LatClass lat;
};

// The unit and latency class of an instruction, independent of the config.
OpClass classifyOp(const ptx::Instr& in);
inline UnitType classify(const ptx::Instr& in) { return classifyOp(in).unit; }

struct OpTiming {
  UnitType unit;     // after the int_units/dp_units == 0 fallback to SP
  LatClass lat;
  uint32_t latency;  // cycles from issue into the unit to the result
  uint32_t ii;       // cycles before the same pipeline takes another op
  UnitType op_unit;  // the operation's own class, before the fallback (energy per lane)
};

// Latency and initiation interval of a class in a configuration.
void classTiming(LatClass c, const config::GpuConfig& cfg, uint32_t& latency, uint32_t& ii);
OpTiming opTiming(const ptx::Instr& in, const config::GpuConfig& cfg);

// How the compiler sees an instruction's result for its control codes
// (sm.dependency barriers; backend/depctl.h): LDST instructions but
// constant-bank reads, the SFU's, those of a unit that takes a new
// instruction only every 8 or more cycles (GM200's FP64) and those longer
// than a stall count can hold are variable (a dependency barrier guards
// them); everything else is fixed at its class's latency.
ptx::mach::DepTiming depTiming(const ptx::Instr& in, const config::GpuConfig& cfg);

// Pipelines of a unit type in a configuration (0 for INT/DP means "on SP").
uint32_t unitCount(UnitType u, const config::PipelineConfig& p);

}  // namespace rfsim::sm
