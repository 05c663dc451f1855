// The back end's working form of a function between lowering and the final
// machine program: ptx::Instr over *values*. A value id below
// fn.regs.size() is a virtual register (the PTX function's own registers,
// then the temporaries lowering and spilling add); an id of physId(r) is the
// physical register r itself (mach::kSP, the argument and result registers of
// a call sequence), already coloured. Every register operand carries
// Operand::mbits (1, 16, 32 or 64), so the register class of each operand is
// known without looking the value up.
//
//   lower.h     PTX function      -> MFunction (calling convention, stack operands)
//   regalloc.h  MFunction         -> colours (+ spill code inserted into the MFunction)
//   frame.h     MFunction+colours -> machine ptx::Function (frame, prologue/epilogue, rewrite)
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "ptx/ir.h"
#include "ptx/machine.h"

namespace rfsim::backend {

inline constexpr uint32_t kPhysBase = 0x40000000u;
inline uint32_t physId(uint32_t r) { return kPhysBase + r; }
inline bool isPhysId(uint32_t v) { return v >= kPhysBase && v != ptx::kNoReg; }
inline uint32_t physOf(uint32_t v) { return v - kPhysBase; }

// Register classes. A Pair is two consecutive GPRs starting at an even one.
enum class RegClass : uint8_t { Pred, Gpr, Pair };
inline RegClass classOfBits(unsigned mbits) {
  return mbits == 1 ? RegClass::Pred : mbits == 64 ? RegClass::Pair : RegClass::Gpr;
}
// Width of a PTX register type as a machine value: 1, 16, 32 or 64. Throws
// for types the back end does not place (.b128).
unsigned machineBits(ptx::Type t);

// Operand builders for the instructions the back end adds. `reg` is a value
// id (virtual or physId) in an MFunction, a register in a machine function.
ptx::Operand regOperand(uint32_t reg, unsigned mbits);
ptx::Operand immOperand(int64_t value);
ptx::Operand stackAddr(uint32_t sp, int64_t offset);  // [sp + offset], sp: physId(kSP) or kSP
// The register table of every machine function: R0..R254, RZ, P0..P6.
std::vector<ptx::RegInfo> machineRegisterTable();

struct MFunction {
  ptx::Function fn;            // blocks and instructions over value ids; fn.regs: the virtual registers
  uint32_t index = 0;          // in the module
  std::vector<unsigned> vbits; // per virtual register: its width (1, 16, 32, 64)
  // Per virtual register: the value it stands for. A PTX register and a
  // lowering temporary stand for themselves; a spill temporary stands for
  // the register it was spilled from (the checker follows values by this).
  std::vector<uint32_t> origin;
  // The physical registers the function reads on entry (its register
  // arguments) and every ret reads (its register results).
  std::vector<uint32_t> entry_defs, ret_uses;
  // Stack layout pieces known before allocation (bytes): the largest
  // outgoing-argument area of its calls, the .local variables it declares
  // (offset of each symbol in `local_off`), and the stack-passed arguments
  // and results it receives.
  uint32_t out_args_bytes = 0;
  uint32_t locals_bytes = 0;
  std::vector<std::pair<uint32_t, uint32_t>> local_off;  // (symbol, offset in the locals area)
  uint32_t in_args_bytes = 0;
  // What R1 is aligned to in this function (a power of two, at least 8):
  // the frame size is a multiple of it (lower.h: ownStackAlign).
  uint32_t stack_align = 8;
  // Added by the allocator: bytes of spill slots. Spill and Fill
  // instructions address [R1 + slot offset] inside the spill area; frame
  // layout adds the area's offset. spill_bytes is the area, once slots of
  // values never live together share their bytes (ra::shareSpillSlots);
  // spilled_bytes the slots' bytes before that, one per spilled value: how
  // much was spilled, which the back end's choices between schedules compare.
  uint32_t spill_bytes = 0;
  uint32_t spilled_bytes = 0;

  // Scratch registers of multi-instruction operations (prealloc.h:
  // addExpansionScratch): virtual registers the allocator never spills.
  std::vector<uint32_t> scratch_values;

  uint32_t newVreg(ptx::Type type, unsigned bits, uint32_t origin_of = ptx::kNoReg);
};

// Operand access: every register slot of an instruction, as a reference the
// caller may rewrite. A def under a guard is reported as a def (the caller
// must treat it as not killing the old value: `guarded` is true). Uses
// include the guard, address bases, the sources of st/atom, vector elements
// (kNoReg sinks and immediate elements are skipped), an indirect call's
// target register, and a call's implicit register uses and defs
// (CallInfo::machine_uses/defs, physIds in an MFunction, one per 32-bit
// register). Not reported, because they belong to the function: the
// entry's defs (MFunction::entry_defs), each ret's uses (ret_uses), and the
// registers a call clobbers (mach::Abi::clobberedByCall). An instruction
// with one destination may carry its expansion's scratch registers as a Vec
// in dst[1] (prealloc.h: addExpansionScratch): reported as unguarded defs,
// never read, so the allocator keeps them clear of every value live across
// the instruction and they count in the function's registers.
struct Slot {
  uint32_t* reg;        // the id in the operand
  unsigned mbits;       // width of the value (Operand::mbits; 64 for a call target, 32 for implicit ones)
  bool def;
  bool guarded;         // def under a guard predicate
  int operand;          // src k: k (0..4); dst i: 10+i; guard: -1; call target: -2; implicit call use/def: -3
};
void forEachSlot(ptx::Instr& in, ptx::Function& fn, const std::function<void(const Slot&)>& f);
inline bool hasScratch(const ptx::Instr& in) { return in.ndst == 1 && in.dst[1].kind == ptx::OperandKind::Vec; }

}  // namespace rfsim::backend
