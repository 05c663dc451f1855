#include <algorithm>
#include <utility>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr uint32_t kThreads = 256;

struct Csr {
  std::vector<uint32_t> vertexlist, edgelist;  // n + 1 offsets, destinations
};

// A scale-free undirected graph by preferential attachment (Barabasi-Albert
// with a varying number of links): vertex v links to 1 to 5 vertices chosen
// in proportion to their degree (a random end of a random earlier edge), so
// degrees follow a power law like GraphBIG's social graphs, and the peeling
// cascades over several rounds. Repeated links are kept (a multigraph, as
// CSR inputs often are); both directions of each link are stored.
Csr makeGraph(int n, Rng& rng) {
  std::vector<std::pair<uint32_t, uint32_t>> edges{{1, 0}};
  std::vector<uint32_t> ends{1, 0};
  for (int v = 2; v < n; ++v) {
    const int links = 1 + static_cast<int>(rng.below(5));
    for (int l = 0; l < links; ++l) {
      const uint32_t u = ends[rng.below(static_cast<uint32_t>(ends.size()))];
      edges.emplace_back(v, u);
    }
    for (int l = static_cast<int>(edges.size()) - links; l < static_cast<int>(edges.size()); ++l) {
      ends.push_back(edges[l].first);
      ends.push_back(edges[l].second);
    }
  }
  Csr g;
  g.vertexlist.assign(n + 1, 0);
  for (auto [a, b] : edges) {
    ++g.vertexlist[a + 1];
    ++g.vertexlist[b + 1];
  }
  for (int v = 0; v < n; ++v) g.vertexlist[v + 1] += g.vertexlist[v];
  g.edgelist.resize(g.vertexlist[n]);
  std::vector<uint32_t> fill(g.vertexlist.begin(), g.vertexlist.end() - 1);
  for (auto [a, b] : edges) {
    g.edgelist[fill[a]++] = b;
    g.edgelist[fill[b]++] = a;
  }
  return g;
}

Check runR2Kcore(rt::Device& dev, Size size) {
  // Small: 32768 vertices, about 196K directed edges, k = 4: 128 blocks of
  // 256 per launch, two launches per peeling round; Large: 1M vertices,
  // 4096 blocks.
  const int n = size == Size::Small ? 32768 : 1 << 20;
  const uint32_t k = 4;
  Rng rng(211);
  const Csr g = makeGraph(n, rng);

  DeviceBuffer d_vertexlist(dev, g.vertexlist), d_edgelist(dev, g.edgelist),
      d_degree(dev, size_t(n) * sizeof(uint32_t)), d_rml(dev, n), d_flag(dev, n), d_rm_cnt(dev, sizeof(uint32_t)),
      d_over(dev, 1);
  d_rm_cnt.zero();
  const uint32_t blocks = ceilDiv(n, kThreads);
  dev.launch(
      "r2_kcore_init", {blocks}, {kThreads},
      rt::KernelArgs().ptr(d_vertexlist.addr()).ptr(d_degree.addr()).ptr(d_rml.addr()).ptr(d_flag.addr()).u32(n));
  int rounds = 0;
  for (bool stop = false; !stop; ++rounds) {
    if (rounds > n + 1) return Check{false, fmt::format("still peeling after {} rounds", rounds)};
    const uint8_t yes = 1;
    dev.memcpyHtoD(d_over.addr(), &yes, 1);
    dev.launch("r2_kcore_kernel", {blocks}, {kThreads},
               rt::KernelArgs()
                   .ptr(d_vertexlist.addr())
                   .ptr(d_edgelist.addr())
                   .ptr(d_degree.addr())
                   .ptr(d_rml.addr())
                   .ptr(d_flag.addr())
                   .u32(n));
    dev.launch("r2_kcore_kernel2", {blocks}, {kThreads},
               rt::KernelArgs()
                   .ptr(d_degree.addr())
                   .ptr(d_rml.addr())
                   .ptr(d_flag.addr())
                   .u32(n)
                   .u32(k)
                   .ptr(d_rm_cnt.addr())
                   .ptr(d_over.addr()));
    uint8_t over = 0;
    dev.memcpyDtoH(&over, d_over.addr(), 1);
    stop = over != 0;
  }

  // The same synchronous rounds on the host: first the vertices removed in
  // the previous round decrement their neighbours still present, then every
  // present vertex below k goes. A vertex's final count is its degree less
  // its neighbours removed in earlier rounds than itself (all of them if it
  // stays). Integers and an order-independent round structure: exact.
  std::vector<uint32_t> degree(n);
  std::vector<uint8_t> removed(n, 0), flagged(n, 0);
  for (int v = 0; v < n; ++v) degree[v] = g.vertexlist[v + 1] - g.vertexlist[v];
  uint32_t removed_count = 0;
  int ref_rounds = 0;
  for (bool any = true; any; ++ref_rounds) {
    for (int v = 0; v < n; ++v) {
      if (!flagged[v]) continue;
      for (uint32_t e = g.vertexlist[v]; e < g.vertexlist[v + 1]; ++e)
        if (!removed[g.edgelist[e]]) --degree[g.edgelist[e]];
      flagged[v] = 0;
    }
    any = false;
    for (int v = 0; v < n; ++v)
      if (!removed[v] && degree[v] < k) {
        removed[v] = flagged[v] = 1;
        ++removed_count;
        any = true;
      }
  }
  Check c = compareExact(d_degree.download<uint32_t>(n), degree, "remaining degrees");
  if (!c.passed) return c;
  Check r = compareExact(d_rml.download<uint8_t>(n), removed, "removed flags");
  if (!r.passed) return r;
  const uint32_t got_count = d_rm_cnt.download<uint32_t>(1)[0];
  if (got_count != removed_count || rounds != ref_rounds) {
    return Check{false, fmt::format("{} removals in {} rounds counted, expected {} in {}", got_count, rounds,
                                    removed_count, ref_rounds)};
  }
  r.detail = fmt::format(
      "{} vertices, {} directed edges, k = {}: {} peeled in {} rounds of 2 launches of {} x {}, "
      "{}-core of {} vertices; {}; {}",
      n, g.edgelist.size(), k, removed_count, rounds, blocks, kThreads, k, n - removed_count, c.detail, r.detail);
  return r;
}

}  // namespace

RFSIM_WORKLOAD("r2_kcore",
               "GraphBIG-style k-core decomposition by repeated peeling over CSR (atomicSub), 256-thread blocks "
               "(R2D2 suite)",
               "workloads/r2_kcore/r2_kcore.ptx", {"r2d2", "graph", "multi-launch"}, runR2Kcore);

}  // namespace rfsim::workloads
