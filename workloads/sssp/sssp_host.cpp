#include <climits>
#include <functional>
#include <queue>
#include <utility>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr int kInf = INT_MAX;  // unreached

struct Graph {
  std::vector<int> row, adj;
  std::vector<uint32_t> weight;  // per edge, 1..100
};

// Out-degrees 0..7; three edges in four go to one of the next 16 vertices
// (long chains, so distances improve over many rounds), the rest anywhere.
// Some vertices stay unreachable from the source.
Graph makeGraph(int n, Rng& rng) {
  Graph g;
  g.row.push_back(0);
  for (int v = 0; v < n; ++v) {
    int degree = static_cast<int>(rng.below(8));
    for (int k = 0; k < degree; ++k) {
      int u = rng.below(4) == 0 ? static_cast<int>(rng.below(n)) : (v + 1 + static_cast<int>(rng.below(16))) % n;
      g.adj.push_back(u);
      g.weight.push_back(1 + rng.below(100));
    }
    g.row.push_back(static_cast<int>(g.adj.size()));
  }
  return g;
}

std::vector<int> dijkstra(const Graph& g, int n, int source) {
  std::vector<int> dist(n, kInf);
  using Item = std::pair<int, int>;  // (distance, vertex)
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> pq;
  dist[source] = 0;
  pq.push({0, source});
  while (!pq.empty()) {
    auto [d, v] = pq.top();
    pq.pop();
    if (d != dist[v]) continue;
    for (int e = g.row[v]; e < g.row[v + 1]; ++e) {
      int u = g.adj[e], nd = d + static_cast<int>(g.weight[e]);
      if (nd < dist[u]) {
        dist[u] = nd;
        pq.push({nd, u});
      }
    }
  }
  return dist;
}

Check runSssp(rt::Device& dev, Size size) {
  const int n = size == Size::Small ? 2048 : 65536;
  const int source = 0;
  Rng rng(123);
  Graph g = makeGraph(n, rng);
  const size_t m = g.adj.size();

  // sssp.cu's edge_weight: two 16-bit weights per word, edge 2k in the low half.
  std::vector<uint32_t> packed((m + 1) / 2, 0);
  for (size_t e = 0; e < m; ++e) packed[e / 2] |= g.weight[e] << (e % 2 ? 16 : 0);

  std::vector<int> dist(n, kInf), frontier(n, 0);
  dist[source] = 0;
  frontier[source] = 1;
  DeviceBuffer d_row(dev, g.row), d_adj(dev, g.adj), d_w(dev, packed), d_dist(dev, dist);
  DeviceBuffer d_front_a(dev, frontier), d_front_b(dev, n * sizeof(int)), d_lowered(dev, sizeof(uint32_t));
  uint64_t cur = d_front_a.addr(), next = d_front_b.addr();

  const uint32_t block = 128;
  int rounds = 0;
  uint64_t lowered_total = 0;
  for (;; ++rounds) {
    if (rounds > n) {  // Bellman-Ford settles every distance within n - 1 rounds
      return Check{false, fmt::format("SSSP did not converge after {} rounds", rounds)};
    }
    dev.memset(next, 0, n * sizeof(int));
    dev.memset(d_lowered.addr(), 0, sizeof(uint32_t));
    dev.launch("sssp_relax", {ceilDiv(n, block)}, {block},
               rt::KernelArgs()
                   .ptr(d_row.addr())
                   .ptr(d_adj.addr())
                   .ptr(d_w.addr())
                   .ptr(d_dist.addr())
                   .ptr(cur)
                   .ptr(next)
                   .ptr(d_lowered.addr())
                   .i32(n));
    uint32_t lowered = 0;
    dev.memcpyDtoH(&lowered, d_lowered.addr(), sizeof lowered);
    if (lowered == 0) break;
    lowered_total += lowered;
    std::swap(cur, next);
  }

  std::vector<int> ref = dijkstra(g, n, source);
  long reached = std::count_if(ref.begin(), ref.end(), [](int d) { return d != kInf; });
  Check c = compareExact(d_dist.download<int>(n), ref, "distances (INT_MAX = unreached) against Dijkstra's");
  if (c.passed) {
    c.detail = fmt::format("{} vertices, {} edges (weights 1..100), {} reached from vertex {}: {} frontier rounds, {} "
                           "relaxations lowered a distance; {}",
                           n, m, reached, source, rounds + 1, lowered_total, c.detail);
  }
  return c;
}

}  // namespace

RFSIM_WORKLOAD("sssp",
               "single-source shortest paths by frontier Bellman-Ford (atomicMin relaxations) with non-inlined relax "
               "helpers, call depth 3 (-rdc, weak linkage: full ABI)",
               "workloads/sssp/sssp.ptx", {"calls", "atomics", "divergence", "multi-launch", "graph"}, runSssp,
               {"workloads/sssp/lib/sssp_lib.ptx"});

}  // namespace rfsim::workloads
