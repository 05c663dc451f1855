// LTRF's register renumbering (LTRFconf; Sadrosadati et al., section 4.2;
// docs/ltrf.md): after register allocation and interval formation, the
// registers of each interval's working set are spread over the main
// register file's banks so that a prefetch reads them in parallel.
//
// 1. Register-live-ranges: the webs of each allocated register (its
//    definitions joined with the uses they reach, and through the blocks
//    that merge them).
// 2. The interval conflict graph (ICG): an edge between two webs that are
//    named in a common interval (both in its prefetch).
// 3. A balanced colouring with as many colours as MRF banks (Chaitin's
//    order: webs of fewer than k neighbours first; each takes the least used
//    colour its neighbours leave free, or, when none is, the colour fewest
//    of them have: the paper allows no spill code).
// 4. Renumbering: each web to a free register of its colour's bank (bank =
//    register mod banks, the MRF model's mapping within a warp) that no web
//    simultaneously live holds, without raising the kernel's occupancy (a
//    kernel may use the rest of its 8-register allocation granule, given
//    `reserved` registers counted beyond its highest), or by swapping
//    registers with the one web in the way.
// 5. Refinement (ours): units shifted, or two swapped, while that lowers the
//    same-bank registers of the intervals they are named in.
// What the paper leaves open (docs/ltrf.md), chosen here: a web that
// cannot move keeps its register and its bank is its colour -- webs live at
// the function's entry or return, named by a call's implicit operands, and
// R1. The two halves of a 64-bit value are webs of their own that move as
// one unit by an even distance (a pair must stay an aligned even/odd pair);
// a web live across a call moves only to a callee-saved register (the
// callee may change any other). A register of the callee-saved range is a
// candidate in a called function only when the function already saves it.
// When no register of the colour is free, the web keeps its own.
#pragma once

#include <cstdint>

#include "ptx/ir.h"

namespace rfsim::mech::ltrf {

// Which MRF bank a register of a warp is in: interleaved (register mod
// banks: the MRF model's mapping within a warp, ltrf_sm.h) or, with
// regs_per_bank, contiguous (the paper's walk-through: register / regs per
// bank).
struct BankMapping {
  uint32_t banks = 16;
  uint32_t regs_per_bank = 0;  // 0: interleaved
  uint32_t bank(uint32_t r) const { return (regs_per_bank ? r / regs_per_bank : r) % banks; }
};

struct RenumberResult {
  uint32_t webs = 0;        // live ranges of general registers
  uint32_t fixed = 0;       // ... that keep their register
  uint32_t moved = 0;       // ... given another register
  uint32_t icg_edges = 0;   // interval conflict graph edges
  uint32_t same_colour = 0; // ICG edges whose ends got the same colour (residual conflicts)
  uint32_t off_colour = 0;  // webs that got a register outside their colour's bank
  uint32_t conflicts_before = 0, conflicts_after = 0;  // same-bank registers over the intervals' sets
  bool kept = true;         // false: the conflicts did not fall, the code is left as it was
};

// Renumbers `fn` (allocated, CFG built) for intervals of `n` registers and
// `banks` MRF banks, keeping the result only when the prefetches' bank
// conflicts fall. The slot values (backend/check.h) do not change: the
// same values live in other registers, and the back end's checker verifies
// it after the pass.
RenumberResult renumber(ptx::Function& fn, uint32_t n, const BankMapping& bm, uint32_t reserved = 2);

// Share of the intervals (with a non-empty working set) whose registers lie
// in different banks, and the largest number
// of registers one bank holds in one interval, minus 1 (the paper's Fig. 16
// "conflicts").
struct ConflictCount {
  uint32_t intervals = 0, conflict_free = 0, max_conflicts = 0;
};
ConflictCount bankConflicts(const ptx::Function& fn, uint32_t n, const BankMapping& bm);

}  // namespace rfsim::mech::ltrf
