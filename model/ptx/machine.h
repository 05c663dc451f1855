// The machine program's registers and calling convention, shared by the back
// end that produces it (model/backend) and the executor that runs it
// (model/func). A machine program is a ptx::Module with `machine` set: every
// function's register table is the physical register file below, every
// register operand carries Operand::mbits, and calls follow the convention
// here. Documented for users in docs/abi.md.
//
// The convention is modelled on NVIDIA's as Kang et al. report it (§II:
// "callee-saved registers come from a contiguous set of architectural
// registers starting at R16"; at most 256 registers, 8-bit register
// fields), with the parts the paper does not give taken from what
// SASS shows (R1 is the stack pointer, arguments from R4, results in R4).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rfsim::ptx::mach {

// Register ids in a machine function's register table (Function::regs).
inline constexpr uint32_t kNumGpr = 256;      // R0..R254 and RZ
inline constexpr uint32_t kRZ = 255;          // reads as zero, writes are dropped
inline constexpr uint32_t kSP = 1;            // R1: the stack pointer (a local-memory address)
inline constexpr uint32_t kPredBase = 256;    // P0..P6 are ids 256..262
inline constexpr uint32_t kNumPred = 7;
// Registers of the operand classes mechanisms add (ptx/isa_ext.h,
// ExtRegClassDesc: say, a mechanism's precomputed thread-, block- and
// coefficient-index registers): ids kExtRegBase .. kExtRegBase + kNumExtRegs - 1, given out to the
// classes in the order they are registered. They are not general registers:
// the allocator never chooses them, a launch does not count them in its
// registers per thread, and where their values live is the mechanism's (a
// register translator gives their rows; without one each warp holds its own,
// by name).
inline constexpr uint32_t kExtRegBase = kPredBase + kNumPred;
inline constexpr uint32_t kNumExtRegs = 320;
inline constexpr uint32_t kNumRegIds = kExtRegBase + kNumExtRegs;  // size of a machine register table

inline bool isPred(uint32_t id) { return id >= kPredBase && id < kPredBase + kNumPred; }
inline bool isGpr(uint32_t id) { return id < kNumGpr; }
inline bool isExtReg(uint32_t id) { return id >= kExtRegBase && id < kNumRegIds; }
// A register whose value is a 32-bit word per lane held in a register-file
// row: a general register or an extension-class register (not a predicate).
inline bool isRowReg(uint32_t id) { return id < kPredBase || isExtReg(id); }
// "R12", "RZ", "P3", an extension class's "TR3" (its prefix and number).
std::string regName(uint32_t id);

// Calling convention.
inline constexpr uint32_t kArgFirst = 4;          // arguments and results: R4..R15
inline constexpr uint32_t kArgLast = 15;
inline constexpr uint32_t kCalleeSavedFirst = 16; // callee-saved: R16 .. R16+count-1
// The return address: every call sequence writes it into the pair R20:R21
// (published SASS listings: `MOV R20, ...; MOV R21, ...; CALL.REL.NOINC f` ...
// `RET.REL.NODEC R20`; not checked here, no disassembler)
// and a function hands it back there at its return. Every call changes the
// pair, so it is not callee-saved; a function that makes calls must keep its
// own return address elsewhere across them (a callee-saved pair it saves:
// ptxas' 8 bytes of spill stores in every non-leaf function, measured in
// docs/abi.md).
inline constexpr uint32_t kRetAddr = 20;

// The callee-saved registers. ptxas (sm_75, sm_80 and sm_90 alike) uses
// R16..R31 less the return-address pair and, from R32 up, the upper four of
// every eight: R36-R39, R44-R47, ... A kernel keeps 20 values live across a
// call to an extern function in R16-R19, R22-R31, R36-R39 and R44-R45, and a
// leaf with 60 live values uses only R0-R15, R32-R35, R40-R43, ..., R120-R123
// and saves nothing (docs/abi.md, abi_probes 13, 14 and 02). `upper_quads` false is
// the contiguous range R16..R16+callee_saved_count-1 that Kang et al.
// describe (§II), which a register stack can rename as one block
// (configuration key compiler.callee_saved).
struct Abi {
  uint32_t callee_saved_count = 16;  // R16..R31 (without the return-address pair)
  bool upper_quads = true;           // R(8k+4)..R(8k+7) for k >= 4 as well
  bool calleeSaved(uint32_t r) const {
    if (r == kRetAddr || r == kRetAddr + 1 || r < kCalleeSavedFirst) return false;
    if (r < kCalleeSavedFirst + callee_saved_count) return true;
    return upper_quads && r >= kCalleeSavedFirst + 16 && r < kRZ && (r & 4u) != 0;
  }
  // Registers a call may change: every GPR but R1, RZ and the callee-saved
  // registers, and every predicate.
  bool clobberedByCall(uint32_t id) const {
    if (isPred(id)) return true;
    return id != kSP && id != kRZ && id < kNumGpr && !calleeSaved(id);
  }
};

// Where each parameter (or each result) of a function goes. Parameters are
// laid out in order: each takes ceil(size / 4) consecutive registers from R4,
// starting at an even register when it is 8 bytes or larger and 8-aligned
// (a 64-bit scalar, an aggregate aligned to 8); the first parameter that does
// not fit below R16, and every one after it, goes on the stack instead, in
// the caller's outgoing-argument area at the bottom of its frame (offsets
// aligned to the parameter's alignment). Results follow the same rule from R4.
// An aggregate's bytes fill its registers in order, 4 a register (a field
// of 8 bytes takes two registers, not an aligned pair); a register none of
// whose bytes the writer stores (padding) is not passed.
struct ParamShape {
  uint64_t size = 0;   // bytes
  uint32_t align = 4;  // bytes
};
struct ParamLoc {
  bool in_regs = false;
  uint32_t first_reg = 0;   // in_regs: R(first_reg) holds bytes [0, 4)
  uint32_t nregs = 0;
  uint32_t stack_off = 0;   // !in_regs: offset in the outgoing-argument area
};
struct ParamLayout {
  std::vector<ParamLoc> locs;
  uint32_t stack_bytes = 0;  // size of the stack part, rounded up to 8
  uint32_t stack_align = 4;  // the largest alignment of a stack-passed one (at least 4)
};
ParamLayout layoutParams(const std::vector<ParamShape>& params);

inline uint32_t alignUp(uint32_t v, uint32_t a) { return (v + a - 1) / a * a; }

// Maxwell-style dependency control (Instr::stall/wbar/rbar/wait; the back
// end assigns them, backend/depctl.h; the SM runs by them with
// sm.dependency barriers, docs/sm.md).
inline constexpr uint32_t kDepBarriers = 6;  // per warp (Maxwell, Pascal: Sakdhnagool et al. §2)
inline constexpr uint32_t kMaxStall = 15;    // a 4-bit stall field
// How an instruction's results become ready, as the compiler sees it: the
// SM's timing of a configuration (sm/issue/op_class.h: depTiming).
struct DepTiming {
  enum Kind : uint8_t { Other, Global, Shared };
  bool variable = false;  // a barrier guards its results (its latency is not known at compile time)
  uint32_t latency = 1;   // cycles from its issue to a dependent instruction's issue
  Kind kind = Other;      // for the barrier tracker's estimate
};

// The outgoing-argument area of a call holds the stack-passed parameters,
// then the stack-passed results, at this offset: after the parameters,
// aligned to 8 or to the results' alignment when larger. The area sits at
// the caller's R1, which is aligned to at least the largest alignment it
// holds (the back end's frames keep it so: docs/abi.md "Stack frame").
inline uint32_t resultsOffset(const ParamLayout& params, const ParamLayout& results) {
  return alignUp(params.stack_bytes, results.stack_align > 8 ? results.stack_align : 8);
}

}  // namespace rfsim::ptx::mach
