// Lowering: a PTX function to the back end's working form (mfunction.h),
// applying the calling convention of ptx/machine.h.
//
//   * Every register operand gets Operand::mbits from its register's type.
//   * The function's register parameters are copied out of R4.. at entry
//     (MRole::ArgMove) and its register results into R4.. before each ret;
//     `ld.param`/`st.param` on its own parameters and results become moves
//     (or bit-field extracts/inserts for sub-word accesses) on those copies.
//   * A call sequence's `st.param` into an argument symbol writes virtual
//     registers that are moved into the argument registers just before the
//     call; the call's results are moved out just after it; stack-passed
//     arguments and results become ld.local/st.local at [R1 + offset] in the
//     caller's outgoing-argument area (MRole::ArgStack).
//   * .local variables declared in the function live in its frame: their
//     addresses become R1-relative.
//   * Block 0 gets no predecessors (a new entry block is added when a loop
//     starts at the first instruction), so prologues run once.
#pragma once

#include <cstdint>

#include "backend/mfunction.h"
#include "ptx/ir.h"
#include "ptx/machine.h"

namespace rfsim::backend {

// Immediate bias marking an R1-relative access to the caller's outgoing area
// as seen from the callee (its incoming stack arguments and results): frame
// layout replaces it by the callee's frame size.
inline constexpr int64_t kIncomingBias = int64_t{1} << 40;

// The shape the convention sees for a parameter symbol.
ptx::mach::ParamShape paramShape(const ptx::Symbol& s);
// Where a .local variable of a function goes in its frame: its alignment
// (declared, else natural), at least 4.
uint32_t localAlign(const ptx::Symbol& s);
// The alignment function `index`'s own frame needs of R1: 8 (the
// convention's, docs/abi.md), or more for a .local variable or a
// stack-passed argument or result of one of its calls aligned to more (an
// `.align 16` aggregate past R15). compileModule raises it to the most over
// the functions it may call, so R1 is aligned to it from the kernel down
// (MFunction::stack_align).
uint32_t ownStackAlign(const ptx::Module& m, uint32_t index);

// `m` must have its CFGs built. Throws rfsim::Error naming file:line for PTX
// the back end cannot place.
MFunction lowerFunction(const ptx::Module& m, uint32_t index);

}  // namespace rfsim::backend
