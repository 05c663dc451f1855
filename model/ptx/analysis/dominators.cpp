#include "ptx/analysis/dominators.h"

#include <algorithm>

#include "ptx/analysis/cfg.h"

namespace rfsim::ptx {

namespace {

using Graph = std::vector<std::vector<uint32_t>>;

// Post-order of the nodes reachable from `root`, iteratively (deep CFGs of
// unrolled kernels would overflow a recursive walk).
std::vector<uint32_t> postOrder(const Graph& succ, uint32_t root, std::vector<bool>& seen) {
  std::vector<uint32_t> order;
  std::vector<std::pair<uint32_t, size_t>> stack;
  seen[root] = true;
  stack.push_back({root, 0});
  while (!stack.empty()) {
    auto& [v, next] = stack.back();
    if (next < succ[v].size()) {
      const uint32_t w = succ[v][next++];
      if (!seen[w]) {
        seen[w] = true;
        stack.push_back({w, 0});
      }
    } else {
      order.push_back(v);
      stack.pop_back();
    }
  }
  return order;
}

// Cooper-Harvey-Kennedy on the graph `succ` from `root`. Returns the
// immediate dominator of every node (root: itself; not reached: -1).
std::vector<int32_t> chk(const Graph& succ, uint32_t root) {
  const size_t n = succ.size();
  Graph pred(n);
  for (uint32_t v = 0; v < n; ++v)
    for (uint32_t w : succ[v]) pred[w].push_back(v);
  std::vector<bool> seen(n, false);
  const std::vector<uint32_t> po = postOrder(succ, root, seen);
  std::vector<int32_t> po_num(n, -1);
  for (size_t i = 0; i < po.size(); ++i) po_num[po[i]] = static_cast<int32_t>(i);

  std::vector<int32_t> idom(n, -1);
  idom[root] = static_cast<int32_t>(root);
  auto intersect = [&](int32_t a, int32_t b) {
    while (a != b) {
      while (po_num[a] < po_num[b]) a = idom[a];
      while (po_num[b] < po_num[a]) b = idom[b];
    }
    return a;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (auto it = po.rbegin(); it != po.rend(); ++it) {
      const uint32_t v = *it;
      if (v == root) continue;
      int32_t new_idom = -1;
      for (uint32_t p : pred[v]) {
        if (idom[p] == -1) continue;  // not processed yet, or not reachable
        new_idom = new_idom == -1 ? static_cast<int32_t>(p) : intersect(static_cast<int32_t>(p), new_idom);
      }
      if (idom[v] != new_idom) {
        idom[v] = new_idom;
        changed = true;
      }
    }
  }
  return idom;
}

Graph successors(const Function& fn) {
  Graph g(fn.blocks.size());
  for (size_t b = 0; b < fn.blocks.size(); ++b) g[b] = fn.blocks[b].succs;
  return g;
}

}  // namespace

std::vector<uint32_t> reversePostOrder(const Function& fn) {
  if (fn.blocks.empty()) return {};
  std::vector<bool> seen(fn.blocks.size(), false);
  std::vector<uint32_t> po = postOrder(successors(fn), 0, seen);
  std::reverse(po.begin(), po.end());
  return po;
}

std::vector<int32_t> dominators(const Function& fn) {
  if (fn.blocks.empty()) return {};
  std::vector<int32_t> idom = chk(successors(fn), 0);
  for (auto& d : idom)
    if (d == -1) d = kUnreachable;
  return idom;
}

bool dominates(const std::vector<int32_t>& idom, uint32_t a, uint32_t b) {
  if (a == b) return true;
  if (idom[a] == kUnreachable || idom[b] == kUnreachable) return false;
  for (uint32_t v = b; idom[v] != static_cast<int32_t>(v);) {
    v = static_cast<uint32_t>(idom[v]);
    if (v == a) return true;
  }
  return false;
}

PostDom postDominators(const Function& fn) {
  PostDom pd;
  const uint32_t n = static_cast<uint32_t>(fn.blocks.size());
  if (n == 0) return pd;
  const uint32_t exit = n;  // the virtual exit node
  // Reverse graph: exit -> blocks that leave; block -> its predecessors.
  Graph rev(n + 1);
  for (uint32_t b = 0; b < n; ++b) {
    for (uint32_t s : fn.blocks[b].succs) rev[s].push_back(b);
    if (fn.blocks[b].succs.empty() || leavesFunction(fn.blocks[b])) rev[exit].push_back(b);
  }

  // A forward order over every block (entry first, then whatever the entry
  // does not reach) picks the block to connect in each infinite loop.
  std::vector<int32_t> rpo_num(n, -1);
  {
    const Graph fwd = successors(fn);
    std::vector<bool> seen(n, false);
    std::vector<uint32_t> order;
    for (uint32_t r = 0; r < n; ++r) {
      if (seen[r]) continue;
      std::vector<uint32_t> po = postOrder(fwd, r, seen);
      std::reverse(po.begin(), po.end());
      order.insert(order.end(), po.begin(), po.end());
    }
    for (uint32_t i = 0; i < n; ++i) rpo_num[order[i]] = static_cast<int32_t>(i);
  }
  for (;;) {
    std::vector<bool> seen(n + 1, false);
    postOrder(rev, exit, seen);
    int32_t pick = -1;
    for (uint32_t b = 0; b < n; ++b)
      if (!seen[b] && (pick == -1 || rpo_num[b] > rpo_num[pick])) pick = static_cast<int32_t>(b);
    if (pick == -1) break;
    rev[exit].push_back(static_cast<uint32_t>(pick));
    pd.fake_exits.push_back(static_cast<uint32_t>(pick));
  }

  const std::vector<int32_t> ipdom = chk(rev, exit);
  pd.ipdom.resize(n);
  for (uint32_t b = 0; b < n; ++b) pd.ipdom[b] = ipdom[b] == static_cast<int32_t>(exit) ? kVirtualExit : ipdom[b];
  return pd;
}

bool postDominates(const PostDom& pd, int32_t a, uint32_t b) {
  if (a == kVirtualExit || a == static_cast<int32_t>(b)) return true;
  for (int32_t v = pd.ipdom[b]; v != kVirtualExit; v = pd.ipdom[v])
    if (v == a) return true;
  return false;
}

}  // namespace rfsim::ptx
