#include <algorithm>
#include <numeric>
#include <utility>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr uint32_t kIdBits = 22;  // mst.cu's ID_BITS: edge ids below 2^22, weights below 2^10
constexpr uint32_t kMaxWeight = 1000;

struct Graph {
  int n = 0;
  std::vector<int> eu, ev;           // edge e joins eu[e] and ev[e]
  std::vector<uint32_t> ew;          // its weight, 1..kMaxWeight
  std::vector<int> row, adj;         // CSR, both directions of every edge
  std::vector<uint32_t> adj_w, adj_id;
};

// Clusters of 64 vertices, 0..3 edges out of each vertex (most inside its
// cluster, one in eight to anywhere): a forest of several trees, isolated
// vertices included, with parallel edges and ties in weight.
Graph makeGraph(int n, Rng& rng) {
  Graph g;
  g.n = n;
  constexpr int kCluster = 64;
  for (int v = 0; v < n; ++v) {
    int degree = static_cast<int>(rng.below(4));
    for (int k = 0; k < degree; ++k) {
      int base = v / kCluster * kCluster;
      int u = rng.below(8) == 0 ? static_cast<int>(rng.below(n))
                                : std::min(n - 1, base + static_cast<int>(rng.below(kCluster)));
      uint32_t w = 1 + rng.below(kMaxWeight);
      if (u == v) continue;
      g.eu.push_back(v);
      g.ev.push_back(u);
      g.ew.push_back(w);
    }
  }
  const size_t m = g.eu.size();
  g.row.assign(n + 1, 0);
  for (size_t e = 0; e < m; ++e) {
    ++g.row[g.eu[e] + 1];
    ++g.row[g.ev[e] + 1];
  }
  for (int v = 0; v < n; ++v) g.row[v + 1] += g.row[v];
  g.adj.resize(2 * m);
  g.adj_w.resize(2 * m);
  g.adj_id.resize(2 * m);
  std::vector<int> fill(g.row.begin(), g.row.end() - 1);
  for (size_t e = 0; e < m; ++e) {
    for (auto [a, b] : {std::pair{g.eu[e], g.ev[e]}, std::pair{g.ev[e], g.eu[e]}}) {
      int slot = fill[a]++;
      g.adj[slot] = b;
      g.adj_w[slot] = g.ew[e];
      g.adj_id[slot] = static_cast<uint32_t>(e);
    }
  }
  return g;
}

struct Forest {
  std::vector<uint32_t> in_mst;  // per edge, 0 or 1
  std::vector<int> label;        // per vertex, the smallest vertex of its component
  uint64_t weight = 0;
  int components = 0;
};

// Kruskal with the device's order on edges (weight, then id).
Forest kruskal(const Graph& g) {
  const size_t m = g.eu.size();
  std::vector<uint32_t> order(m);
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return g.ew[a] != g.ew[b] ? g.ew[a] < g.ew[b] : a < b;
  });
  std::vector<int> parent(g.n);
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](int x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  Forest f;
  f.in_mst.assign(m, 0);
  f.components = g.n;
  for (uint32_t e : order) {
    int a = find(g.eu[e]), b = find(g.ev[e]);
    if (a == b) continue;
    parent[std::max(a, b)] = std::min(a, b);  // the root stays the smallest vertex
    f.in_mst[e] = 1;
    f.weight += g.ew[e];
    --f.components;
  }
  f.label.resize(g.n);
  for (int v = 0; v < g.n; ++v) f.label[v] = find(v);
  return f;
}

Check runMst(rt::Device& dev, Size size) {
  const int n = size == Size::Small ? 2048 : 65536;
  Rng rng(77);
  Graph g = makeGraph(n, rng);
  const size_t m = g.eu.size();
  if (m >= (size_t{1} << kIdBits)) return Check{false, fmt::format("{} edges do not fit the key's id field", m)};

  std::vector<int> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  DeviceBuffer d_row(dev, g.row), d_adj(dev, g.adj), d_adj_w(dev, g.adj_w), d_adj_id(dev, g.adj_id);
  DeviceBuffer d_eu(dev, g.eu), d_ev(dev, g.ev), d_parent(dev, parent);
  DeviceBuffer d_cheapest(dev, n * sizeof(uint32_t)), d_in_mst(dev, m * sizeof(uint32_t));
  DeviceBuffer d_totals(dev, 2 * sizeof(uint32_t));
  d_in_mst.zero();
  d_totals.zero();

  const uint32_t block = 128, grid = ceilDiv(n, block);
  int rounds = 0, launches = 0;
  uint64_t merges_total = 0;
  for (;; ++rounds) {
    if (rounds > 64) {  // each round at least halves the number of components that can still merge
      return Check{false, fmt::format("Boruvka did not converge after {} rounds", rounds)};
    }
    dev.memset(d_cheapest.addr(), 0xff, n * sizeof(uint32_t));
    dev.memset(d_totals.addr(), 0, sizeof(uint32_t));  // totals[0]: merges this round
    dev.launch("mst_find_min", {grid}, {block},
               rt::KernelArgs()
                   .ptr(d_row.addr())
                   .ptr(d_adj.addr())
                   .ptr(d_adj_w.addr())
                   .ptr(d_adj_id.addr())
                   .ptr(d_parent.addr())
                   .ptr(d_cheapest.addr())
                   .i32(n));
    dev.launch("mst_merge", {grid}, {block},
               rt::KernelArgs()
                   .ptr(d_parent.addr())
                   .ptr(d_cheapest.addr())
                   .ptr(d_eu.addr())
                   .ptr(d_ev.addr())
                   .ptr(d_in_mst.addr())
                   .ptr(d_totals.addr())
                   .i32(n));
    launches += 2;
    uint32_t merges = 0;
    dev.memcpyDtoH(&merges, d_totals.addr(), sizeof merges);
    if (merges == 0) break;
    merges_total += merges;
    dev.launch("mst_relabel", {grid}, {block}, rt::KernelArgs().ptr(d_parent.addr()).i32(n));
    ++launches;
  }

  Forest ref = kruskal(g);
  auto totals = d_totals.download<uint32_t>(2);
  const int components = n - static_cast<int>(merges_total);
  Check c;
  if (totals[1] != ref.weight || components != ref.components) {
    c.detail = fmt::format("forest weight {} with {} components, expected weight {} with {} components", totals[1],
                           components, ref.weight, ref.components);
    return c;
  }
  c = compareExact(d_in_mst.download<uint32_t>(m), ref.in_mst, "forest-membership flags of the edges");
  if (!c.passed) return c;
  c = compareExact(d_parent.download<int>(n), ref.label, "component labels (smallest vertex)");
  if (!c.passed) return c;
  c.detail = fmt::format(
      "{} vertices, {} undirected edges: forest weight {} and {} components equal Kruskal's; the {} forest edges and "
      "every vertex's component label match exactly ({} Boruvka rounds, {} launches)",
      n, m, ref.weight, ref.components, n - ref.components, rounds + 1, launches);
  return c;
}

}  // namespace

RFSIM_WORKLOAD("mst",
               "minimum spanning forest by Boruvka (find-min, merge, relabel per round) with non-inlined union-find "
               "helpers (-rdc, weak linkage: full ABI)",
               "workloads/mst/mst.ptx", {"calls", "atomics", "divergence", "multi-launch", "graph"}, runMst,
               {"workloads/mst/lib/mst_lib.ptx"});

}  // namespace rfsim::workloads
