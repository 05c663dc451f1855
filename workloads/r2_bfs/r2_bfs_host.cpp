#include <algorithm>
#include <queue>
#include <utility>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr int kThreads = 512;  // MAX_THREADS_PER_BLOCK in the kernel

// Rodinia's Node: the first edge and the number of edges of a vertex.
struct Node {
  int starting;
  int no_of_edges;
};

struct Graph {
  std::vector<Node> nodes;
  std::vector<int> edges;
};

// A directed graph like Rodinia's generated inputs (graph4096 ... graph1MW_6):
// 1 to 11 out-edges per vertex, 6 on average. A quarter of the edges go to
// a random vertex, the others to a vertex at most 48 away, so the search
// takes more levels than on a purely random graph and its frontiers grow
// and shrink. Some vertices are never reached.
Graph makeGraph(int n, Rng& rng) {
  Graph g;
  g.nodes.resize(n);
  for (int v = 0; v < n; ++v) {
    const int degree = 1 + static_cast<int>(rng.below(11));
    g.nodes[v] = Node{static_cast<int>(g.edges.size()), degree};
    for (int e = 0; e < degree; ++e) {
      int u = rng.below(4) == 0 ? static_cast<int>(rng.below(n)) : (v + n + static_cast<int>(rng.below(97)) - 48) % n;
      g.edges.push_back(u);
    }
  }
  return g;
}

std::vector<int> bfsReference(const Graph& g, int source) {
  const int n = static_cast<int>(g.nodes.size());
  std::vector<int> cost(n, -1);
  std::queue<int> q;
  cost[source] = 0;
  q.push(source);
  while (!q.empty()) {
    const int v = q.front();
    q.pop();
    for (int e = g.nodes[v].starting; e < g.nodes[v].starting + g.nodes[v].no_of_edges; ++e) {
      const int u = g.edges[e];
      if (cost[u] < 0) {
        cost[u] = cost[v] + 1;
        q.push(u);
      }
    }
  }
  return cost;
}

Check runR2Bfs(rt::Device& dev, Size size) {
  // Small: 16384 vertices, about 98K edges: 32 blocks of 512 per launch,
  // two launches per level; Large: 1M vertices (Rodinia's graph1MW_6 size),
  // 2048 blocks.
  const int n = size == Size::Small ? 16384 : 1 << 20;
  const int source = 0;
  Rng rng(202);
  const Graph g = makeGraph(n, rng);

  std::vector<uint8_t> mask(n, 0), updating(n, 0), visited(n, 0);
  std::vector<int> cost(n, -1);
  mask[source] = 1;
  visited[source] = 1;
  cost[source] = 0;
  DeviceBuffer d_nodes(dev, g.nodes), d_edges(dev, g.edges), d_mask(dev, mask), d_updating(dev, updating),
      d_visited(dev, visited), d_cost(dev, cost), d_over(dev, 1);

  const uint32_t blocks = ceilDiv(n, kThreads);
  int levels = 0;
  for (bool stop = true; stop; ++levels) {
    if (levels > n) return Check{false, fmt::format("BFS did not finish after {} levels", levels)};
    const uint8_t cleared = 0;
    dev.memcpyHtoD(d_over.addr(), &cleared, 1);
    dev.launch("r2_bfs_kernel", {blocks}, {kThreads},
               rt::KernelArgs()
                   .ptr(d_nodes.addr())
                   .ptr(d_edges.addr())
                   .ptr(d_mask.addr())
                   .ptr(d_updating.addr())
                   .ptr(d_visited.addr())
                   .ptr(d_cost.addr())
                   .i32(n));
    dev.launch(
        "r2_bfs_kernel2", {blocks}, {kThreads},
        rt::KernelArgs().ptr(d_mask.addr()).ptr(d_updating.addr()).ptr(d_visited.addr()).ptr(d_over.addr()).i32(n));
    uint8_t over = 0;
    dev.memcpyDtoH(&over, d_over.addr(), 1);
    stop = over != 0;
  }

  // Costs are BFS levels: integers, the same whatever the order of the
  // threads, so the check is exact.
  const std::vector<int> ref = bfsReference(g, source);
  const long reached = std::count_if(ref.begin(), ref.end(), [](int c) { return c >= 0; });
  Check c = compareExact(d_cost.download<int>(n), ref, "vertex costs");
  if (c.passed) {
    const int depth = *std::max_element(ref.begin(), ref.end());
    c.detail = fmt::format("{} vertices, {} edges, {} reached, depth {}; {} levels of 2 launches of {} x {}; {}", n,
                           g.edges.size(), reached, depth, levels, blocks, kThreads, c.detail);
  }
  return c;
}

}  // namespace

RFSIM_WORKLOAD("r2_bfs",
               "Rodinia bfs: two kernels per level over a CSR graph, 512-thread blocks, until no change "
               "(R2D2 suite)",
               "workloads/r2_bfs/r2_bfs.ptx", {"r2d2", "rodinia", "multi-launch"}, runR2Bfs);

}  // namespace rfsim::workloads
