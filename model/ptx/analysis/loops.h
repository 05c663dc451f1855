// Natural loops (Aho, Sethi, Ullman, "Compilers", 10.4): every back edge
// t -> h whose target h dominates its source t closes a loop with header h;
// the body is h plus every block that reaches t without passing through h.
// Back edges sharing a header form one loop. A retreating edge (to a block
// still on the depth-first stack) whose target does not dominate its source
// makes the graph irreducible: it is reported, not turned into a loop.
// Needs the CFG (cfg.h: buildCfg).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "ptx/ir.h"

namespace rfsim::ptx {

struct Loop {
  uint32_t header = 0;
  std::vector<uint32_t> blocks;   // the body, header included, ascending
  std::vector<uint32_t> latches;  // sources of the back edges, ascending
  int32_t parent = -1;            // the innermost enclosing loop, or -1
  uint32_t depth = 1;             // 1 for an outermost loop
};

struct LoopInfo {
  std::vector<Loop> loops;          // outer loops before the loops they contain
  std::vector<int32_t> innermost;   // per block: the innermost loop holding it, or -1
  std::vector<uint32_t> depth;      // per block: how many loops hold it (0 outside any)
  bool irreducible = false;
  std::vector<std::pair<uint32_t, uint32_t>> irreducible_edges;  // retreating edges that are not back edges
};

LoopInfo findLoops(const Function& fn);
// With the dominators already computed (dominators.h).
LoopInfo findLoops(const Function& fn, const std::vector<int32_t>& idom);

}  // namespace rfsim::ptx
