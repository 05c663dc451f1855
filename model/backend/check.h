// An allocation checker independent of the allocator: it follows values, not
// registers. Given the machine function and, for every register slot of
// every instruction, the value that slot held before allocation, a forward
// data-flow pass tracks which value each physical register and each stack
// slot holds at every point, and reports every place where
//
//   * a use reads a register (either half of a pair) that does not hold the
//     value the instruction expects (two live values shared a register, a
//     spill or fill went to the wrong slot, a call clobbered a value that was
//     live across it);
//   * a called function returns with a callee-saved register (mach::Abi) or
//     R1 not holding what it held on entry (a missing or wrong save/restore);
//   * a 64-bit value is in an odd register, a register is at or above the
//     function's register count, RZ or R1 is written by plain code.
//
// The state at a join is the meet of its predecessors (different values
// meet to "conflict"); calls clobber every register the ABI lets them and
// then define their result registers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ptx/ir.h"
#include "ptx/machine.h"

namespace rfsim::backend {

// Per block, per instruction, the value of each register slot in
// forEachSlot order (mfunction.h): a virtual register id of the pre-allocation
// function, already mapped to the value it stands for (MFunction::origin); a
// physId (mfunction.h) for a physical value; ptx::kNoReg for a slot with no
// expectation (the saves and restores, the stack-pointer adjustments).
using SlotValues = std::vector<std::vector<std::vector<uint32_t>>>;

struct CheckResult {
  std::vector<std::string> errors;  // "kernel f, block 3 (line 41) `add.s32 R4, R5, R6`: R5 holds %r7, expected %r9"
  uint64_t uses_checked = 0;        // register reads compared
  bool ok() const { return errors.empty(); }
};

// `fn` is a function of a machine program (ptx::Module::machine), its CFG
// built; `values` matches it instruction for instruction. `names` gives the
// name of each pre-allocation value (for messages; may be empty).
CheckResult checkAllocation(const ptx::Function& fn, const SlotValues& values, const ptx::mach::Abi& abi,
                            const std::vector<std::string>& names = {});

}  // namespace rfsim::backend
