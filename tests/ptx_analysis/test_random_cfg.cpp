// Dominators, post-dominators and loops of random CFGs against the textbook
// set-based data-flow definitions (Dom(b) = {b} + the intersection over the
// predecessors), which are slow but plainly right.
#include <catch2/catch.hpp>

#include <random>
#include <set>

#include "ir_builder.h"
#include "ptx/analysis/dominators.h"
#include "ptx/analysis/loops.h"

using namespace rfsim::ptx;
using namespace rfsim::ptx::test;

namespace {

using Set = std::set<uint32_t>;

Function randomFunction(std::mt19937& rng) {
  const uint32_t n = 2 + rng() % 11;
  std::vector<std::vector<Instr>> blocks(n);
  for (uint32_t b = 0; b < n; ++b) {
    const int guard = static_cast<int>(rng() % 3) - 1;
    switch (rng() % 8) {
      case 0: case 1: blocks[b] = {bra(rng() % n, guard)}; break;
      case 2: blocks[b] = {bra(rng() % n, +1), bra(rng() % n)}; break;  // two-way with no fall-through
      case 3: blocks[b] = {ret(guard)}; break;
      case 4: blocks[b] = {exit_(guard)}; break;
      default: blocks[b] = {work()}; break;
    }
  }
  return makeFunction(blocks);
}

// Set-based solution of Dom(v) = {v} + AND over `in` edges, over nodes [0, n).
std::vector<Set> solve(uint32_t n, uint32_t root, const std::vector<std::vector<uint32_t>>& in,
                       const std::vector<bool>& reached) {
  Set all;
  for (uint32_t v = 0; v < n; ++v) all.insert(v);
  std::vector<Set> dom(n, all);
  dom[root] = {root};
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t v = 0; v < n; ++v) {
      if (v == root || !reached[v]) continue;
      Set d = all;
      for (uint32_t p : in[v]) {
        if (!reached[p]) continue;
        Set x;
        for (uint32_t y : d)
          if (dom[p].count(y)) x.insert(y);
        d = x;
      }
      d.insert(v);
      if (d != dom[v]) {
        dom[v] = d;
        changed = true;
      }
    }
  }
  return dom;
}

// The closest strict dominator: the one with the largest set of its own.
int32_t immediate(const std::vector<Set>& dom, uint32_t v) {
  int32_t best = -1;
  for (uint32_t d : dom[v])
    if (d != v && (best < 0 || dom[d].size() > dom[best].size())) best = static_cast<int32_t>(d);
  return best;
}

std::vector<bool> reach(uint32_t n, uint32_t root, const std::vector<std::vector<uint32_t>>& out) {
  std::vector<bool> seen(n, false);
  std::vector<uint32_t> work{root};
  seen[root] = true;
  while (!work.empty()) {
    const uint32_t v = work.back();
    work.pop_back();
    for (uint32_t w : out[v])
      if (!seen[w]) {
        seen[w] = true;
        work.push_back(w);
      }
  }
  return seen;
}

}  // namespace

TEST_CASE("dominators and post-dominators of random CFGs match the set-based definitions", "[cfg][ptx]") {
  std::mt19937 rng(20261121);
  for (int iter = 0; iter < 2000; ++iter) {
    const Function fn = randomFunction(rng);
    const auto n = static_cast<uint32_t>(fn.blocks.size());
    INFO("iteration " << iter << ", " << n << " blocks");
    std::vector<std::vector<uint32_t>> succ(n), pred(n);
    for (uint32_t b = 0; b < n; ++b) {
      succ[b] = fn.blocks[b].succs;
      pred[b] = fn.blocks[b].preds;
    }

    // Dominators.
    const std::vector<bool> reached = reach(n, 0, succ);
    const auto dom = solve(n, 0, pred, reached);
    const auto idom = dominators(fn);
    for (uint32_t b = 0; b < n; ++b) {
      INFO("block " << b);
      if (!reached[b]) {
        CHECK(idom[b] == kUnreachable);
        continue;
      }
      CHECK(idom[b] == (b == 0 ? 0 : immediate(dom, b)));
    }

    // Post-dominators on the graph with the virtual exit (node n) and the
    // fake exit edges the analysis chose.
    const PostDom pd = postDominators(fn);
    std::vector<std::vector<uint32_t>> out(n + 1), rev(n + 1);
    std::vector<bool> real_exit(n, false);
    for (uint32_t b = 0; b < n; ++b) {
      out[b] = succ[b];
      real_exit[b] = succ[b].empty() || leavesFunction(fn.blocks[b]);
      if (real_exit[b]) out[b].push_back(n);
    }
    // A fake exit only where no real exit is reachable.
    for (uint32_t f : pd.fake_exits) {
      const auto r = reach(n + 1, f, out);
      CHECK_FALSE(r[n]);
    }
    for (uint32_t f : pd.fake_exits) out[f].push_back(n);
    for (uint32_t v = 0; v <= n; ++v)
      for (uint32_t w : out[v]) rev[w].push_back(v);
    const std::vector<bool> to_exit = reach(n + 1, n, rev);
    for (uint32_t b = 0; b < n; ++b) CHECK(to_exit[b]);
    const auto pdom = solve(n + 1, n, out, to_exit);
    for (uint32_t b = 0; b < n; ++b) {
      INFO("block " << b);
      const int32_t want = immediate(pdom, b);
      CHECK(pd.ipdom[b] == (want == static_cast<int32_t>(n) ? kVirtualExit : want));
    }

    // Loops: every body block is dominated by its header and reaches a latch.
    const LoopInfo li = findLoops(fn, idom);
    for (const Loop& loop : li.loops) {
      for (uint32_t b : loop.blocks) CHECK(dominates(idom, loop.header, b));
      for (uint32_t t : loop.latches) {
        const auto& s = fn.blocks[t].succs;
        CHECK(std::find(s.begin(), s.end(), loop.header) != s.end());
      }
      if (loop.parent >= 0) {
        const auto& outer = li.loops[loop.parent].blocks;
        for (uint32_t b : loop.blocks) CHECK(std::binary_search(outer.begin(), outer.end(), b));
      }
    }
    for (uint32_t b = 0; b < n; ++b) {
      uint32_t holding = 0;
      for (const Loop& loop : li.loops) holding += std::binary_search(loop.blocks.begin(), loop.blocks.end(), b);
      CHECK(li.depth[b] == holding);
    }
  }
}
