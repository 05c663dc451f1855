#include <algorithm>
#include <numeric>
#include <utility>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr uint32_t kThreads = 256;

struct Csr {
  std::vector<uint32_t> vplist, eplist;  // n + 1 offsets, destinations
};

// An undirected graph of many components, like the small communities
// around the giant one of GraphBIG's LDBC social graphs: the vertices,
// shuffled (so a component's smallest id is anywhere in it), are cut into
// groups of 1 to 1024 vertices with a few large ones; each group is
// connected by a long random tree (every vertex to one of the 256 before it,
// so a large group is tens of hops across and the labels need many rounds)
// plus one more edge per vertex to one at most 128 away in the group. Both
// directions of each edge are stored (a self-loop or a repeated edge now
// and then is harmless).
Csr makeGraph(int n, Rng& rng, int& groups) {
  std::vector<uint32_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0u);
  for (int i = n - 1; i > 0; --i) std::swap(perm[i], perm[rng.below(i + 1)]);
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  groups = 0;
  for (int begin = 0; begin < n; ++groups) {
    const int r = static_cast<int>(rng.below(16));
    const int want = r < 4    ? 1 + static_cast<int>(rng.below(4))
                     : r < 14 ? 8 + static_cast<int>(rng.below(120))
                              : 512 + static_cast<int>(rng.below(513));
    const int size = std::min(want, n - begin);
    for (int i = 1; i < size; ++i) {
      const int back = 1 + static_cast<int>(rng.below(std::min(i, 256)));
      edges.emplace_back(perm[begin + i], perm[begin + i - back]);
      const int near = std::max(0, std::min(size - 1, i + static_cast<int>(rng.below(257)) - 128));
      edges.emplace_back(perm[begin + i], perm[begin + near]);
    }
    begin += size;
  }
  Csr g;
  g.vplist.assign(n + 1, 0);
  for (auto [a, b] : edges) {
    ++g.vplist[a + 1];
    ++g.vplist[b + 1];
  }
  for (int v = 0; v < n; ++v) g.vplist[v + 1] += g.vplist[v];
  g.eplist.resize(g.vplist[n]);
  std::vector<uint32_t> fill(g.vplist.begin(), g.vplist.end() - 1);
  for (auto [a, b] : edges) {
    g.eplist[fill[a]++] = b;
    g.eplist[fill[b]++] = a;
  }
  return g;
}

Check runR2Ccomp(rt::Device& dev, Size size) {
  // Small: 12288 vertices, about 49K directed edges: 48 blocks of 256 per
  // launch, one launch per propagation round; Large: 1M vertices, 4096
  // blocks.
  const int n = size == Size::Small ? 12288 : 1 << 20;
  Rng rng(210);
  int groups = 0;
  const Csr g = makeGraph(n, rng, groups);

  DeviceBuffer d_vplist(dev, g.vplist), d_eplist(dev, g.eplist), d_labels(dev, size_t(n) * sizeof(uint32_t)),
      d_over(dev, 1);
  const uint32_t blocks = ceilDiv(n, kThreads);
  dev.launch("r2_ccomp_init", {blocks}, {kThreads}, rt::KernelArgs().ptr(d_labels.addr()).u32(n));
  int rounds = 0;
  for (bool stop = false; !stop; ++rounds) {
    if (rounds > n) return Check{false, fmt::format("labels still changing after {} rounds", rounds)};
    const uint8_t yes = 1;
    dev.memcpyHtoD(d_over.addr(), &yes, 1);
    dev.launch(
        "r2_ccomp_kernel", {blocks}, {kThreads},
        rt::KernelArgs().ptr(d_vplist.addr()).ptr(d_eplist.addr()).ptr(d_labels.addr()).u32(n).ptr(d_over.addr()));
    uint8_t over = 0;
    dev.memcpyDtoH(&over, d_over.addr(), 1);
    stop = over != 0;
  }

  // The fixpoint: every vertex labelled with the smallest id of its
  // component (union-find on the host). Integers, independent of the order
  // of the in-place updates: the check is exact.
  std::vector<uint32_t> parent(n);
  std::iota(parent.begin(), parent.end(), 0u);
  auto find = [&](uint32_t v) {
    while (parent[v] != v) v = parent[v] = parent[parent[v]];
    return v;
  };
  for (int v = 0; v < n; ++v)
    for (uint32_t e = g.vplist[v]; e < g.vplist[v + 1]; ++e) {
      const uint32_t a = find(v), b = find(g.eplist[e]);
      if (a != b) parent[std::max(a, b)] = std::min(a, b);  // the root stays the smallest id
    }
  std::vector<uint32_t> ref(n);
  int components = 0;
  for (int v = 0; v < n; ++v) {
    ref[v] = find(v);
    components += ref[v] == uint32_t(v);
  }
  Check c = compareExact(d_labels.download<uint32_t>(n), ref, "component labels");
  if (c.passed) {
    c.detail = fmt::format("{} vertices, {} directed edges, {} components; {} propagation launches of {} x {}; {}", n,
                           g.eplist.size(), components, rounds, blocks, kThreads, c.detail);
  }
  return c;
}

}  // namespace

RFSIM_WORKLOAD("r2_ccomp",
               "GraphBIG-style connected components by label propagation over CSR, 256-thread blocks, until "
               "stable (R2D2 suite)",
               "workloads/r2_ccomp/r2_ccomp.ptx", {"r2d2", "graph", "multi-launch"}, runR2Ccomp);

}  // namespace rfsim::workloads
