#include <queue>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

Check runBfs(rt::Device& dev, Size size) {
  // Small: 16384 vertices (64 blocks of 256 per launch); Large: 1 M.
  // Rodinia's generator: every vertex gets 1..8 edges to uniformly random
  // vertices (a directed graph here), so the search takes about log n
  // levels with frontiers that grow fast.
  const int n = size == Size::Small ? 16384 : 1 << 20;
  const int source = 0;
  Rng rng(41);
  std::vector<int> row_start(n + 1, 0), edges;
  for (int v = 0; v < n; ++v) {
    const int degree = 1 + int(rng.below(8));
    for (int e = 0; e < degree; ++e) edges.push_back(int(rng.below(n)));
    row_start[v + 1] = int(edges.size());
  }
  std::vector<uint8_t> mask(n, 0), visited(n, 0);
  std::vector<int> cost(n, -1);
  mask[source] = visited[source] = 1;
  cost[source] = 0;

  DeviceBuffer d_rows(dev, row_start), d_edges(dev, edges), d_mask(dev, mask), d_visited(dev, visited),
      d_cost(dev, cost), d_updating(dev, size_t(n)), d_more(dev, sizeof(int));
  d_updating.zero();
  const uint32_t block = 256;
  int levels = 0;
  for (;; ++levels) {
    if (levels > n) return Check{false, fmt::format("BFS did not finish after {} levels", levels)};
    d_more.zero();
    dev.launch("lt_bfs_expand", {ceilDiv(n, block)}, {block},
               rt::KernelArgs()
                   .ptr(d_rows.addr())
                   .ptr(d_edges.addr())
                   .ptr(d_mask.addr())
                   .ptr(d_updating.addr())
                   .ptr(d_visited.addr())
                   .ptr(d_cost.addr())
                   .i32(n));
    dev.launch("lt_bfs_update", {ceilDiv(n, block)}, {block},
               rt::KernelArgs().ptr(d_mask.addr()).ptr(d_updating.addr()).ptr(d_visited.addr()).ptr(d_more.addr()).i32(n));
    if (d_more.download<int>(1)[0] == 0) break;
  }

  std::vector<int> want(n, -1);
  std::queue<int> q;
  want[source] = 0;
  q.push(source);
  while (!q.empty()) {
    const int v = q.front();
    q.pop();
    for (int e = row_start[v]; e < row_start[v + 1]; ++e)
      if (want[edges[e]] < 0) want[edges[e]] = want[v] + 1, q.push(edges[e]);
  }
  const long reached = std::count_if(want.begin(), want.end(), [](int c) { return c >= 0; });
  Check c = compareExact(d_cost.download<int>(n), want, "vertex costs (against a queue-based BFS)");
  if (c.passed)
    c.detail = fmt::format("{} vertices, {} edges, {} reached, {} levels in {} launches; {}", n, edges.size(), reached,
                           levels + 1, 2 * (levels + 1), c.detail);
  return c;
}

}  // namespace

RFSIM_WORKLOAD("lt_bfs", "breadth-first search, Rodinia's two kernels (expand, update) per level (LTRF suite)",
               "workloads/lt_bfs/lt_bfs.ptx", {"ltrf", "reginsens", "memory", "divergence", "multi-launch", "graph"},
               runBfs);

}  // namespace rfsim::workloads
