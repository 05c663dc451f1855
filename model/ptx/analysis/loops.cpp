#include "ptx/analysis/loops.h"

#include <algorithm>
#include <map>

#include "ptx/analysis/dominators.h"

namespace rfsim::ptx {

namespace {

// Retreating edges of a depth-first walk from the entry: edges to a block
// still on the stack.
std::vector<std::pair<uint32_t, uint32_t>> retreatingEdges(const Function& fn) {
  const size_t n = fn.blocks.size();
  std::vector<uint8_t> state(n, 0);  // 0 new, 1 on stack, 2 done
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  std::vector<std::pair<uint32_t, size_t>> stack{{0, 0}};
  state[0] = 1;
  while (!stack.empty()) {
    auto& [v, next] = stack.back();
    const auto& succs = fn.blocks[v].succs;
    if (next < succs.size()) {
      const uint32_t w = succs[next++];
      if (state[w] == 1) {
        edges.push_back({v, w});
      } else if (state[w] == 0) {
        state[w] = 1;
        stack.push_back({w, 0});
      }
    } else {
      state[v] = 2;
      stack.pop_back();
    }
  }
  return edges;
}

}  // namespace

LoopInfo findLoops(const Function& fn) { return findLoops(fn, dominators(fn)); }

LoopInfo findLoops(const Function& fn, const std::vector<int32_t>& idom) {
  LoopInfo li;
  const size_t n = fn.blocks.size();
  li.innermost.assign(n, -1);
  li.depth.assign(n, 0);
  if (n == 0) return li;

  // Back edges by header. Every back edge of a reachable block is also a
  // retreating edge of any depth-first walk, so walking the retreating edges
  // finds them all.
  std::map<uint32_t, std::vector<uint32_t>> latches;
  for (auto [t, h] : retreatingEdges(fn)) {
    if (dominates(idom, h, t)) {
      latches[h].push_back(t);
    } else {
      li.irreducible = true;
      li.irreducible_edges.push_back({t, h});
    }
  }
  std::sort(li.irreducible_edges.begin(), li.irreducible_edges.end());

  for (auto& [h, ts] : latches) {
    Loop loop;
    loop.header = h;
    std::sort(ts.begin(), ts.end());
    loop.latches = ts;
    std::vector<bool> in(n, false);
    in[h] = true;
    std::vector<uint32_t> work;
    for (uint32_t t : ts)
      if (!in[t]) {
        in[t] = true;
        work.push_back(t);
      }
    while (!work.empty()) {
      const uint32_t v = work.back();
      work.pop_back();
      for (uint32_t p : fn.blocks[v].preds)
        // Unreachable predecessors are not part of any loop the entry runs.
        if (!in[p] && idom[p] != kUnreachable) {
          in[p] = true;
          work.push_back(p);
        }
    }
    for (uint32_t b = 0; b < n; ++b)
      if (in[b]) loop.blocks.push_back(static_cast<uint32_t>(b));
    li.loops.push_back(std::move(loop));
  }

  // Natural loops with different headers are disjoint or nested, so sorting
  // by size (largest first) puts every loop after the loops containing it;
  // the innermost loop holding a block is then the last one that does.
  std::stable_sort(li.loops.begin(), li.loops.end(),
                   [](const Loop& a, const Loop& b) { return a.blocks.size() > b.blocks.size(); });
  for (size_t i = 0; i < li.loops.size(); ++i) {
    Loop& loop = li.loops[i];
    loop.parent = li.innermost[loop.header];
    loop.depth = loop.parent < 0 ? 1 : li.loops[loop.parent].depth + 1;
    for (uint32_t b : loop.blocks) {
      li.innermost[b] = static_cast<int32_t>(i);
      li.depth[b] = loop.depth;
    }
  }
  return li;
}

}  // namespace rfsim::ptx
