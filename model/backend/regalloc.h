// Register allocation of one MFunction (mfunction.h): liveness on the CFG,
// an interference graph, and Chaitin-Briggs graph colouring (Briggs, Cooper
// and Torczon, "Improvements to graph coloring register allocation", TOPLAS
// 1994: optimistic colouring) over three register classes: predicates
// P0..P6, single GPRs and even-aligned GPR pairs. When a value cannot be
// coloured it is spilled to a stack slot (st.local / ld.local at [R1 + slot],
// roles MRole::Spill / MRole::Fill) and allocation starts again.
//
// Constraints:
//   * R1 (stack pointer) and RZ are never allocated; registers >= max_regs
//     are never used (maxrregcount).
//   * Physical values (physId) already sit in their register; a virtual
//     value live where a physical one is live cannot take that register.
//   * Values live across a call cannot be in a register the call clobbers
//     (mach::Abi::clobberedByCall): only the callee-saved range R16.. is left
//     to them, or a spill.
//   * A predicate that cannot get one of the seven P registers is moved to a
//     GPR (selp after each def, setp before each use), like ptxas' P2R/R2P.
//
// Colour choice (the documented preference order, docs/abi.md): in a kernel,
// the lowest free register; in a called function, registers outside the
// callee-saved range first (they cost no save), lowest first, then the
// callee-saved ones; a move-related value prefers its partner's register
// (biased colouring), so argument moves mostly vanish; a value read beside
// others by one instruction prefers a bank they are not in (reg_banks).
//
// Spill choice: the node with the lowest cost / degree, cost = sum over its
// defs and uses of 10^loop_depth (Chaitin 1982); temporaries created by
// spilling are never spilled again. Once every value has a register, spill
// slots whose values are never live together share their bytes
// (ra::shareSpillSlots, after LLVM's StackSlotColoring).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backend/mfunction.h"
#include "ptx/machine.h"

namespace rfsim::backend {

struct RaOptions {
  uint32_t max_regs = 255;  // GPRs R0..R(max_regs-1) may be used (maxrregcount); at least 16 + 2
  ptx::mach::Abi abi;
  bool is_entry = false;    // a kernel: no caller, so no callee-saved preference
  // Register banks (register r in bank r % reg_banks) an instruction's
  // single-word sources are spread over when a register in another bank is
  // free; 1: no preference.
  uint32_t reg_banks = 1;
  // A complete colouring is coloured again in the variants of
  // retryAgainstFragmentation (pairs from the top, program order) under
  // decreasing register ranges, and the one with the fewest registers kept.
  bool minimize = false;
};

struct RaResult {
  // Per virtual register of the (final, spill code included) MFunction: its
  // register: a GPR (the even one of a pair) or mach::kPredBase + k.
  std::vector<uint32_t> assign;
  uint32_t spill_stores = 0, spill_loads = 0;   // Spill / Fill instructions inserted
  uint32_t spilled_values = 0;                  // virtual registers sent to the stack
  uint32_t preds_to_gpr = 0;                    // predicates moved into GPRs
  uint32_t rounds = 0;                          // build-colour-spill iterations
};

// Allocates `f` in place (spill code and spill temporaries are added to it;
// f.spill_bytes is set). Throws rfsim::Error naming the function when
// allocation is impossible (e.g. more physical values live at once than
// registers, or max_regs too small for the calling convention).
RaResult allocateRegisters(MFunction& f, const RaOptions& opt);

// Liveness, exposed for the checker and the tests: per block, the values
// (virtual ids and physIds) live on entry and on exit.
struct Liveness {
  std::vector<std::vector<uint32_t>> live_in, live_out;  // sorted ids
};
Liveness computeLiveness(MFunction& f);

}  // namespace rfsim::backend
