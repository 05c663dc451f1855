// Dominators and post-dominators of a function's blocks (Cooper, Harvey and
// Kennedy, "A Simple, Fast Dominance Algorithm", 2001: the iterative data-flow
// solution on reverse post-order). Needs the CFG (cfg.h: buildCfg).
//
// Post-dominance is taken towards a virtual exit node that every block which
// can leave the function joins: a block holding ret/exit/trap (guarded or
// not) or a block without successors. A block that reaches no such block (an
// infinite loop) is given an extra edge to the virtual exit too, so every
// block has an answer: of the blocks that reach no exit, the one last in
// reverse post-order is connected (all its edges go backwards, so it is the
// latch of the loop it closes), and this repeats until every block reaches
// the exit. PostDom::fake_exits lists those blocks.
//
// The SIMT executor reconverges a divergent branch at the branch block's
// immediate post-dominator (GPGPU-Sim's PDOM stack); -1 (the virtual exit)
// means the threads only meet again when they leave the function.
#pragma once

#include <cstdint>
#include <vector>

#include "ptx/ir.h"

namespace rfsim::ptx {

inline constexpr int32_t kVirtualExit = -1;  // ipdom: the virtual exit node
inline constexpr int32_t kUnreachable = -2;  // idom: a block the entry does not reach

// Immediate dominator per block: idom[0] = 0 (the entry), kUnreachable for
// blocks the entry does not reach.
std::vector<int32_t> dominators(const Function& fn);

// Does a dominate b? (Every block dominates itself; nothing dominates or is
// dominated by an unreachable block, except that block itself.)
bool dominates(const std::vector<int32_t>& idom, uint32_t a, uint32_t b);

struct PostDom {
  // Immediate post-dominator per block; kVirtualExit (-1) when it is the
  // virtual exit. Defined for every block, reachable from the entry or not.
  std::vector<int32_t> ipdom;
  // Blocks given an edge to the virtual exit because they reach no ret/exit
  // (infinite loops), in the order they were connected.
  std::vector<uint32_t> fake_exits;
};

PostDom postDominators(const Function& fn);

// Does a post-dominate b? a may be kVirtualExit, which post-dominates every
// block. Every block post-dominates itself.
bool postDominates(const PostDom& pd, int32_t a, uint32_t b);

// The reverse post-order of the blocks the entry reaches (entry first).
std::vector<uint32_t> reversePostOrder(const Function& fn);

}  // namespace rfsim::ptx
