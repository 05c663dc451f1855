#include <algorithm>
#include <queue>
#include <utility>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

struct Csr {
  std::vector<int> row_offsets, columns;
};

// A directed graph with mostly short edges (to the next few vertices, so the
// search takes many levels) and a few random long ones (so frontiers grow
// and threads of a warp follow different amounts of work). Out-degrees 0..6;
// some vertices stay unreachable.
Csr makeGraph(int n, Rng& rng) {
  Csr g;
  g.row_offsets.reserve(n + 1);
  g.row_offsets.push_back(0);
  for (int v = 0; v < n; ++v) {
    int degree = static_cast<int>(rng.below(7));
    for (int e = 0; e < degree; ++e) {
      int u = rng.below(16) == 0 ? static_cast<int>(rng.below(n)) : (v + 1 + static_cast<int>(rng.below(8))) % n;
      g.columns.push_back(u);
    }
    g.row_offsets.push_back(static_cast<int>(g.columns.size()));
  }
  return g;
}

std::vector<int> bfsReference(const Csr& g, int n, int source) {
  std::vector<int> level(n, -1);
  std::queue<int> q;
  level[source] = 0;
  q.push(source);
  while (!q.empty()) {
    int v = q.front();
    q.pop();
    for (int e = g.row_offsets[v]; e < g.row_offsets[v + 1]; ++e) {
      int u = g.columns[e];
      if (level[u] < 0) {
        level[u] = level[v] + 1;
        q.push(u);
      }
    }
  }
  return level;
}

Check runBfs(rt::Device& dev, Size size) {
  const int n = size == Size::Small ? 3000 : 1 << 20;
  const int source = 0;
  Rng rng(9);
  Csr g = makeGraph(n, rng);

  std::vector<int> levels(n, -1);
  levels[source] = 0;
  std::vector<uint8_t> frontier(n, 0);
  frontier[source] = 1;
  DeviceBuffer d_rows(dev, g.row_offsets), d_cols(dev, g.columns), d_levels(dev, levels);
  DeviceBuffer d_frontier_a(dev, frontier), d_frontier_b(dev, n), d_changed(dev, sizeof(int));
  uint64_t cur = d_frontier_a.addr(), next = d_frontier_b.addr();

  const uint32_t block = 256;
  int level = 0;
  for (;; ++level) {
    if (level > n) {  // each level reaches a new vertex, so this is a simulator fault
      return Check{false, fmt::format("BFS did not converge after {} levels", level)};
    }
    dev.memset(next, 0, n);
    dev.memset(d_changed.addr(), 0, sizeof(int));
    dev.launch("bfs_level", {ceilDiv(n, block)}, {block},
               rt::KernelArgs()
                   .ptr(d_rows.addr())
                   .ptr(d_cols.addr())
                   .ptr(cur)
                   .ptr(next)
                   .ptr(d_levels.addr())
                   .i32(level)
                   .i32(n)
                   .ptr(d_changed.addr()));
    int changed = 0;
    dev.memcpyDtoH(&changed, d_changed.addr(), sizeof changed);
    if (!changed) break;
    std::swap(cur, next);
  }

  std::vector<int> ref = bfsReference(g, n, source);
  long reached = std::count_if(ref.begin(), ref.end(), [](int l) { return l >= 0; });
  Check c = compareExact(d_levels.download<int>(n), ref, "vertex levels");
  if (c.passed) {
    c.detail = fmt::format("{} vertices, {} edges, {} reached in {} launches; {}", n, g.columns.size(), reached,
                           level + 1, c.detail);
  }
  return c;
}

}  // namespace

RFSIM_WORKLOAD("bfs", "level-synchronous breadth-first search on a CSR graph, one launch per level",
               "workloads/bfs/bfs.ptx", {"memory", "divergence", "multi-launch"}, runBfs);

}  // namespace rfsim::workloads
