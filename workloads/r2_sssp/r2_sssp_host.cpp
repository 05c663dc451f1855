#include <algorithm>
#include <cstdint>
#include <functional>
#include <queue>
#include <utility>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr uint32_t kThreads = 256;
constexpr uint32_t kInfinity = UINT32_MAX;  // an unreached vertex

struct Csr {
  std::vector<uint32_t> vertexlist, edgelist, eproplist;  // n + 1 offsets, destinations, weights
};

// A directed graph with 2 to 10 out-edges per vertex (6 on average); a fifth
// of the edges go anywhere, the others to a vertex at most 64 away, so the
// shortest paths run over many hops and the relaxation takes many rounds;
// integer weights 1 to 100.
Csr makeGraph(int n, Rng& rng) {
  Csr g;
  g.vertexlist.reserve(n + 1);
  g.vertexlist.push_back(0);
  for (int v = 0; v < n; ++v) {
    const int degree = 2 + static_cast<int>(rng.below(9));
    for (int e = 0; e < degree; ++e) {
      const uint32_t u = rng.below(5) == 0 ? rng.below(n) : uint32_t((v + n + int(rng.below(129)) - 64) % n);
      g.edgelist.push_back(u);
      g.eproplist.push_back(1 + rng.below(100));
    }
    g.vertexlist.push_back(static_cast<uint32_t>(g.edgelist.size()));
  }
  return g;
}

std::vector<uint32_t> dijkstra(const Csr& g, int n, uint32_t root) {
  std::vector<uint32_t> dist(n, kInfinity);
  using Item = std::pair<uint64_t, uint32_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> q;
  dist[root] = 0;
  q.emplace(0, root);
  while (!q.empty()) {
    auto [d, v] = q.top();
    q.pop();
    if (d != dist[v]) continue;
    for (uint32_t e = g.vertexlist[v]; e < g.vertexlist[v + 1]; ++e) {
      const uint32_t u = g.edgelist[e], nd = uint32_t(d) + g.eproplist[e];
      if (nd < dist[u]) {
        dist[u] = nd;
        q.emplace(nd, u);
      }
    }
  }
  return dist;
}

Check runR2Sssp(rt::Device& dev, Size size) {
  // Small: 8192 vertices, about 49K edges: 32 blocks of 256 per launch, two
  // launches per relaxation round; Large: 1M vertices, 4096 blocks.
  const int n = size == Size::Small ? 8192 : 1 << 20;
  const uint32_t root = 0;
  Rng rng(212);
  const Csr g = makeGraph(n, rng);

  std::vector<uint32_t> dist(n, kInfinity);
  std::vector<uint8_t> mask(n, 0);
  dist[root] = 0;
  mask[root] = 1;
  DeviceBuffer d_vertexlist(dev, g.vertexlist), d_edgelist(dev, g.edgelist), d_eproplist(dev, g.eproplist),
      d_vpl(dev, dist), d_update(dev, dist), d_mask(dev, mask), d_over(dev, 1);
  const uint32_t blocks = ceilDiv(n, kThreads);
  int rounds = 0;
  for (bool again = true; again; ++rounds) {
    if (rounds > n) return Check{false, fmt::format("distances still changing after {} rounds", rounds)};
    const uint8_t no = 0;
    dev.memcpyHtoD(d_over.addr(), &no, 1);
    dev.launch("r2_sssp_kernel", {blocks}, {kThreads},
               rt::KernelArgs()
                   .ptr(d_vertexlist.addr())
                   .ptr(d_edgelist.addr())
                   .ptr(d_eproplist.addr())
                   .ptr(d_vpl.addr())
                   .ptr(d_update.addr())
                   .ptr(d_mask.addr())
                   .u32(n));
    dev.launch("r2_sssp_kernel2", {blocks}, {kThreads},
               rt::KernelArgs().ptr(d_vpl.addr()).ptr(d_update.addr()).ptr(d_mask.addr()).u32(n).ptr(d_over.addr()));
    uint8_t over = 0;
    dev.memcpyDtoH(&over, d_over.addr(), 1);
    again = over != 0;
  }

  // Shortest distances are unique integers (Dijkstra on the host; no sum
  // comes near 2^32): the check is exact.
  const std::vector<uint32_t> ref = dijkstra(g, n, root);
  const long reached = std::count_if(ref.begin(), ref.end(), [](uint32_t d) { return d != kInfinity; });
  Check c = compareExact(d_vpl.download<uint32_t>(n), ref, "distances");
  if (c.passed) {
    c.detail = fmt::format("{} vertices, {} edges, {} reached; {} rounds of 2 launches of {} x {}; {}", n,
                           g.edgelist.size(), reached, rounds, blocks, kThreads, c.detail);
  }
  return c;
}

}  // namespace

RFSIM_WORKLOAD("r2_sssp",
               "GraphBIG-style shortest paths: Bellman-Ford relaxation over CSR with integer weights (atomicMin), "
               "256-thread blocks, until no change (R2D2 suite)",
               "workloads/r2_sssp/r2_sssp.ptx", {"r2d2", "graph", "multi-launch"}, runR2Sssp);

}  // namespace rfsim::workloads
