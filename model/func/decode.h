// The executor's form of a function: instructions laid out back to back (a
// flat pc), every operand resolved once at load to a register column, a
// constant or a frame-relative address, and every branch given its target pc
// and its reconvergence pc (the immediate post-dominator's first pc).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "func/semantics/semantics.h"
#include "ptx/ir.h"
#include "ptx/machine.h"

namespace rfsim::func {

inline constexpr uint32_t kNoPc = 0xffffffffu;    // rpc: meet only on leaving the function
inline constexpr uint32_t kExitPc = 0xfffffffeu;  // pc of an entry waiting at the virtual exit
// Machine programs: register columns kNumRegIds and kNumRegIds + 1 take the
// writes to RZ (a 32-bit write, or the two halves of a 64-bit one), so the
// RZ column itself always reads zero.
inline constexpr uint32_t kSinkReg = ptx::mach::kNumRegIds;
inline constexpr uint32_t kMachineColumns = ptx::mach::kNumRegIds + 2;
struct DFunction;
// The register columns of a decoded machine program (compactMachineColumns):
// R0..R<top> by number, then the extension-class registers it names (in id
// order), then RZ, P0..P6 and the two sinks. The first `row_cols` columns
// hold registers a register file keeps in rows (SmHooks::physical_rows).
struct MachineColumns {
  uint32_t row_cols = 0;
  std::vector<uint32_t> ext_col;  // per extension register id - kExtRegBase: its column, or kNoReg
  // The column of register `id` (a general or extension register).
  uint32_t of(uint32_t id) const {
    return id < ptx::mach::kExtRegBase ? id : ext_col.empty() ? ptx::kNoReg : ext_col[id - ptx::mach::kExtRegBase];
  }
  // The column of any register the instruction lists (DInstr::reads and
  // writes): a general, extension or predicate register (RZ and the
  // predicates come after the row columns).
  uint32_t ofAny(uint32_t id) const {
    if (id >= ptx::mach::kRZ && id < ptx::mach::kExtRegBase) return row_cols + (id - ptx::mach::kRZ);
    return of(id);
  }
};
// Renumbers the register columns of a decoded machine program to the
// registers it uses (program.cpp); DFunction::nregs becomes that count.
MachineColumns compactMachineColumns(std::vector<DFunction>& funcs);

enum class DKind : uint8_t {
  None,
  Reg,         // regs column `reg`, plus `value` (an address offset)
  Const,       // `value`
  SReg,        // special register sreg.dim
  Local,       // the frame's local stack base + `value` (a .local symbol's local address)
  FrameParam,  // kFrameParamBase + the frame's stack base + `value` (a .func param symbol)
  Vec,         // regs[0..vec_n): kNoReg is a sink in a destination, in a source an
               // immediate element whose bits are in `value` at [i*w, (i+1)*w)
  // Machine programs only:
  RegPair,     // 64 bits in columns `reg` (low word) and `reg` + 1, plus `value`
  RegNarrow,   // column `reg` read through `mask` (a 16-bit operand), plus `value`
  ParamVal,    // a kernel parameter as an operand (constant bank 0): the `mask`-wide
               // value at byte `value` of the launch's parameter buffer
  ConstVal,    // a .const variable as an operand (constant bank 3): the `mask`-wide
               // value at device address `value`, in constant memory
};

// What every operand reads comes first (its first 32 bytes), the vector
// operands' elements after.
struct DOperand {
  DKind kind = DKind::None;
  bool negate = false;  // `!%p`
  ptx::SReg sreg = ptx::SReg::None;
  uint8_t dim = 0;
  uint8_t vec_n = 0;
  bool pair = false;      // Vec: every element is a 64-bit pair (regs[i], regs[i] + 1)
  uint32_t reg = ptx::kNoReg;
  uint64_t value = 0;
  uint64_t mask = ~0ull;  // destination register width (Reg); read mask (RegNarrow)
  uint64_t value_hi = 0;  // Vec source: bits 64..127 of the immediate elements (ptx::Operand::imm_hi)
  std::array<uint32_t, 4> regs{ptx::kNoReg, ptx::kNoReg, ptx::kNoReg, ptx::kNoReg};
  std::array<uint64_t, 4> masks{~0ull, ~0ull, ~0ull, ~0ull};  // destination register widths
};

enum class Cls : uint8_t {
  Lane,        // evalLane
  MovVec,      // mov with a vector operand: pack / unpack
  Ld, St, Atom, Red, Cvta,
  Bra, Call, Ret, Exit, Trap, Brkpt,
  Bar, Shfl, Vote, Activemask,
  Nop,         // membar, fence, prefetch, nanosleep, a mechanism's ISA extension (Op::Ext)
};

enum class Builtin : uint8_t { None, Malloc, Free, Vprintf };

struct DInstr {
  const ptx::Instr* in = nullptr;
  ptx::Op op{};  // in->op, at hand for the per-opcode counts
  Cls cls = Cls::Nop;
  uint8_t ndst = 0, nsrc = 0;
  uint8_t bytes = 0;  // ld/st/atom/red: bytes per element
  // ld/st with an address addend (ptx::Mods::uaddr): its source index and
  // width (a 32-bit addend wraps the address at 32 bits); 0: none.
  uint8_t addend = 0, addend_bits = 0;
  bool has_guard = false, guard_neg = false;
  uint32_t guard_reg = ptx::kNoReg;
  LaneFn fn = nullptr;    // Lane: the lane function picked for this instruction
  WarpFn wfn = nullptr;   // Lane: the same over a whole warp, where there is one (warpFunction)
  bool carry_in = false, carry_out = false;  // Lane: reads / writes CC.CF
  uint8_t role = 0;       // ptx::MRole of a machine instruction (0: Code)
  uint32_t target = 0;    // bra: target pc
  uint32_t rpc = kNoPc;   // bra: reconvergence pc
  // The operands after the fields every instruction reads.
  std::array<DOperand, 2> dst;
  std::array<DOperand, 5> src;
  uint32_t callee = 0;    // call: function index (direct)
  const ptx::CallInfo* call = nullptr;
  // Where the symbol operands live, as offsets into the frame (call
  // argument and return symbols of the caller's call sequence).
  std::vector<uint32_t> arg_off, ret_off;
  // Machine programs only (empty otherwise): the physical registers the
  // instruction reads and writes, for the timing model's scoreboard and
  // register-file banks (reg_use.cpp). One id per 32-bit register (a 64-bit
  // operand lists both registers of its pair), predicates as 256 + n, RZ
  // left out, each id once. Reads: guard, sources, address bases, vector
  // elements, an indirect call's target pair, CallInfo::machine_uses;
  // writes: destinations and CallInfo::machine_defs (not the clobbers).
  std::array<uint16_t, 24> reads{};
  std::array<uint16_t, 16> writes{};
  uint8_t nreads = 0, nwrites = 0;
  // Operand reuse flags, as ptxas sets them (setReuseFlags): bit i when
  // this unpredicated ALU instruction's i-th register-file operand (the i-th
  // general register of `reads`, predicates left out) is the register that
  // the next instruction of the same basic block with an i-th operand reads
  // there, that one an unpredicated ALU instruction too, with no control
  // transfer, predicated instruction or write of it in between.
  uint8_t reuse = 0;
};

struct DFunction {
  const ptx::Function* fn = nullptr;
  uint32_t index = 0;
  Builtin builtin = Builtin::None;
  std::vector<DInstr> code;       // every block in order, then one synthetic `ret`
  std::vector<uint32_t> block_pc;  // first pc of each block
  uint32_t nregs = 0;
  std::vector<uint64_t> reg_mask;  // per register: its width as a mask
  uint32_t frame_bytes = 0;        // per-thread stack bytes of one activation
  std::vector<uint32_t> param_off, param_size;  // the function's own params in its frame
  std::vector<uint32_t> ret_off, ret_size;
  uint64_t address = 0;            // generic address (kCodeWindow + 16 * index)
  bool machine = false;            // of a machine program (ptx/machine.h)
  // Machine built-ins: where the parameters and results are (mach::layoutParams).
  std::vector<ptx::mach::ParamLoc> mach_params, mach_rets;
  ptx::Instr implicit_ret;         // the synthetic ret at the end of `code`
};

// Where a symbol lives. `addr` is the global address (global, const), the
// shared offset, the kernel-parameter offset, the module-local offset, the
// offset inside its function's frame (function-scoped .local and .func
// .param symbols), or the code address (functions).
enum class Place : uint8_t { None, Global, Shared, KernelParam, ModuleLocal, FrameLocal, FrameParam, Code };

struct SymbolPlace {
  Place place = Place::None;
  uint64_t addr = 0;
};

// Fills `out` (already in its final place: DInstr::in and the synthetic ret
// point into it and into the module) for function `index` of `m`, whose CFG
// has been built. Throws rfsim::Error naming file:line and the instruction
// for anything the executor cannot run.
void decodeFunction(const ptx::Module& m, uint32_t index, const std::vector<SymbolPlace>& places,
                    const std::string& file, DFunction& out);

// Machine programs: fills d.reads / d.writes from the machine instruction
// `in` (reg_use.cpp); `call` is the instruction's CallInfo for a call.
void fillRegUse(const ptx::Instr& in, const ptx::CallInfo* call, DInstr& d);
// DInstr::reuse of every instruction of a machine function's `code`, whose
// basic blocks start at `block_pc`.
void setReuseFlags(std::vector<DInstr>& code, const std::vector<uint32_t>& block_pc);
// A machine function's register-file source operands and how many of them
// setReuseFlags flags (the calls' implicit argument registers left out): the
// static figures compared with ptxas' .reuse flags (scripts/reuse_flags.py).
struct ReuseCount {
  uint64_t operands = 0, flagged = 0;
};
ReuseCount reuseCount(const ptx::Function& fn);

// "ld.global.f32": the mnemonic used in run-time error messages.
std::string mnemonic(const ptx::Instr& in);

}  // namespace rfsim::func
