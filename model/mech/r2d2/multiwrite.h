// R2D2's registers written more than once (Ha, Oh, Ro, ISCA'23, section
// 3.1.2 and Algorithm 1, line 12; docs/r2d2.md): PTX is near-SSA, so a second
// write means control flow, and the analysis (linearity.h) classified each
// linear definition of such a register. The transformation treats them so:
//
//   - a loop update with a scalar step (r = r + s in the loop, r = V0 before
//     it): the linear register holds V0, the first iteration's value, and a
//     new general-purpose *uniform* register u holds the offset. The loop
//     updates u instead of r (u = 0 where r was set to V0, u = u + s where r
//     was advanced), and each read of r becomes lr + u, summed by the LD/ST
//     unit's address adder (section 4.2: "coefficient/uniform register
//     values"; the instruction's address addend, ptx::Mods::uaddr, SASS's
//     [R+UR+imm]). Choices the paper leaves open, made here:
//       * only reads the address adder can serve qualify: the address of an
//         ld or st, and t = r + x (x an immediate or a linear value, t
//         written once and read only as addresses), whose reads become
//         lr' + u with lr' = V0 + x (the add goes: a uniform pointer
//         advanced by the loop plus a thread's index is the common case
//         nvcc emits); every read must have an index part (a uniform pointer
//         read alone stays on the scalar path); a read of r by anything
//         else (a compare, a store of the pointer, a multiply) keeps the
//         whole register's original code, and so does an update that is not
//         r + s, s - ... forms (add either way round, sub r - s, mad a, b, r);
//       * a read adds the uniform register or a coefficient register, not
//         both ("coefficient/uniform"): its linear register is grouped with
//         reads whose constant differs by an integer (folded into the
//         offset), and a read that would need more keeps its register's code;
//       * the update stays a (warp) instruction: the model has no separate
//         uniform datapath, so a loop saves the derived adds, not the update;
//   - a divergent definition (one of several writes, none reading itself)
//     and the start value of a loop whose step is not scalar: the definition
//     becomes a move from its own linear register (the paper inserts it at
//     the end of the defining block; in place is the same value, and a read
//     later in the block sees it), and the code computing it can go;
//     the loop's updates run as they were.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "mech/r2d2/linearity.h"
#include "ptx/ir.h"

namespace rfsim::mech::r2d2 {

using InstrAt = std::pair<uint32_t, uint32_t>;  // (block, index)

struct LoopPlan {
  uint32_t reg = 0, bits = 64;
  const Definition* init = nullptr;
  std::vector<InstrAt> updates;
  struct Read {
    uint32_t block = 0, index = 0;
    uint32_t reg = 0;   // r, or a derived t = r + x
    CoefVec vec;        // the value at the first iteration
  };
  std::vector<Read> reads;       // address operands (src 0 of an ld or st)
  std::vector<InstrAt> derived;  // the adds t = r + x that go
};

struct DivergentDef {
  const Definition* def = nullptr;
  uint32_t bits = 64;
};

struct MultiWrite {
  std::vector<LoopPlan> loops;
  std::vector<DivergentDef> divergent;
};

// Which multi-write registers of `fn` the transformation can rewrite, and how.
MultiWrite planMultiWrite(const ptx::Function& fn, const Linearity& L);

// The loop's register becomes its uniform offset `u` (a new register of the
// same width): the start value u = 0, each update advances u. Its reads are
// rewritten by the transformation (their linear register and the addend).
void rewriteLoop(ptx::Function& fn, const LoopPlan& lp, uint32_t u);

}  // namespace rfsim::mech::r2d2
