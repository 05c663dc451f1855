// The last step of the back end for one function: the stack frame, the
// prologue and epilogues, and the rewrite from values to physical registers.
//
// Frame (R1-relative, the stack grows down; R1 is moved once in the
// prologue and back in each epilogue):
//
//   [0, out)            outgoing stack arguments/results of its calls
//   [out, +locals)      its .local variables
//   [.., +spill)        pressure-spill slots (regalloc.h)
//   [.., +saves)        callee-saved registers it uses (4 bytes each)
//   frame size F        rounded up to MFunction::stack_align (8, or 16 where an
//                       .align 16 local or stack argument needs it);
//                       incoming stack arguments at [R1 + F + ...]
//
// Prologue (block 0): `sub.u32 R1, R1, F` (MRole::StackAdj) then one
// `st.local.b32 [R1+off], Rn` per saved register (MRole::Save). Before every
// ret of a called function, with the ret's guard: the matching
// `ld.local.b32` (MRole::Restore) and `add.u32 R1, R1, F`.
#pragma once

#include <cstdint>
#include <vector>

#include "backend/check.h"
#include "backend/mfunction.h"
#include "backend/regalloc.h"
#include "ptx/ir.h"
#include "ptx/machine.h"

namespace rfsim::backend {

struct FinishedFunction {
  ptx::Function fn;                    // machine form: physical registers, machine_* fields set
  SlotValues values;                   // for checkAllocation
  std::vector<std::string> value_names;  // per pre-allocation value id (virtual ones)
  std::vector<uint32_t> callee_saved;  // registers saved and restored
  uint32_t frame_bytes = 0;
  uint32_t spill_stores = 0, spill_loads = 0, saves = 0, restores = 0, arg_moves = 0;
  uint32_t spill_store_bytes = 0, spill_load_bytes = 0;  // Spill+Save, Fill+Restore
};

FinishedFunction finishFunction(MFunction& mf, const RaResult& ra, const ptx::mach::Abi& abi);

// Recounts out's spill/fill/save/restore/argument-move figures from the
// instructions' roles (after a mechanism pass changed the code).
void countRoles(const ptx::Function& fn, FinishedFunction& out);

}  // namespace rfsim::backend
