#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr int kBlock = 64, kK = 6, kMaxDegree = kBlock * kK, kDims = 2;

Check runQtc(rt::Device& dev, Size size) {
  // Points in blobs on an integer grid (2-d, coordinates 0..63): every
  // squared distance is an exact integer in float, so the clusters, ties
  // included, must match the reference exactly. Small: 1024 points, 32
  // seeds on 16 blocks (two each); large: 8192 points, 1536 seeds on 1536
  // blocks (as the paper's 8192 points on 1538 blocks: 3 waves of the GTX
  // Titan X's 24 SMs at 21 blocks each, its occupancy at 48 registers).
  const int n = size == Size::Small ? 1024 : 8192;
  const int blobs = size == Size::Small ? 24 : 192;
  const int seeds = size == Size::Small ? 32 : 1536;
  const int blocks = size == Size::Small ? 16 : 1536;
  const float threshold_sq = 18.0f;
  Rng rng(23);
  std::vector<int> centre(size_t(blobs) * kDims);
  for (auto& v : centre) v = 4 + int(rng.below(56));
  std::vector<float> pts(size_t(n) * kDims);
  for (int i = 0; i < n; ++i) {
    const int b = int(rng.below(blobs));
    for (int d = 0; d < kDims; ++d)
      pts[size_t(d) * n + i] = float(centre[size_t(b) * kDims + d] + int(rng.below(9)) - 4);
  }
  auto dist2 = [&](int i, int j) {
    int s = 0;
    for (int d = 0; d < kDims; ++d) {
      const int t = int(pts[size_t(d) * n + i]) - int(pts[size_t(d) * n + j]);
      s += t * t;
    }
    return s;
  };
  // Each point's neighbours within the threshold, in index order, at most
  // kMaxDegree (SHOC's indr_mtrx and degrees).
  std::vector<int32_t> neigh(size_t(n) * kMaxDegree, -1), degree(n, 0);
  int truncated = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (j != i && float(dist2(i, j)) <= threshold_sq) {
        if (degree[i] == kMaxDegree) {
          ++truncated;
          break;
        }
        neigh[size_t(i) * kMaxDegree + degree[i]++] = j;
      }
  const size_t stride = kMaxDegree + 1;
  DeviceBuffer d_pts(dev, pts), d_neigh(dev, neigh), d_degree(dev, degree),
      d_members(dev, std::vector<int32_t>(size_t(seeds) * stride, -1)), d_card(dev, size_t(seeds) * 4),
      d_diam(dev, size_t(seeds) * 4), d_bcard(dev, size_t(blocks) * 4), d_bseed(dev, size_t(blocks) * 4);
  dev.launch("qtc", {uint32_t(blocks)}, {kBlock},
             rt::KernelArgs()
                 .ptr(d_pts.addr())
                 .i32(n)
                 .ptr(d_neigh.addr())
                 .ptr(d_degree.addr())
                 .i32(kMaxDegree)
                 .i32(seeds)
                 .f32(threshold_sq)
                 .ptr(d_members.addr())
                 .ptr(d_card.addr())
                 .ptr(d_diam.addr())
                 .ptr(d_bcard.addr())
                 .ptr(d_bseed.addr()));
  // The reference: the same greedy growth, candidate by candidate.
  std::vector<int32_t> want_members(size_t(seeds) * stride, -1), want_card(seeds), want_bcard(blocks, -1),
      want_bseed(blocks, -1);
  std::vector<float> want_diam(seeds);
  long total = 0;
  for (int seed = 0; seed < seeds; ++seed) {
    const int deg = degree[seed];
    const int32_t* list = &neigh[size_t(seed) * kMaxDegree];
    std::vector<int> dm(deg, 0);  // largest squared distance to a member; -1: joined
    int w = seed, card = 1, diam = 0;
    want_members[size_t(seed) * stride] = seed;
    for (;;) {
      int best = -1;
      for (int c = 0; c < deg; ++c) {
        if (dm[c] < 0 || float(dm[c]) > threshold_sq) continue;
        dm[c] = std::max(dm[c], dist2(w, list[c]));
        if (float(dm[c]) <= threshold_sq && (best < 0 || dm[c] < dm[best])) best = c;
      }
      if (best < 0) break;
      diam = std::max(diam, dm[best]);
      w = list[best];
      dm[best] = -1;
      want_members[size_t(seed) * stride + card++] = w;
    }
    want_card[seed] = card;
    want_diam[seed] = float(diam);
    total += card;
    const int b = seed % blocks;
    if (card > want_bcard[b]) want_bcard[b] = card, want_bseed[b] = seed;
  }
  const std::string what =
      fmt::format("{} seeds of {} points (2-d, squared threshold {}, {} neighbour lists cut at {})", seeds, n,
                  threshold_sq, truncated, kMaxDegree);
  Check c = compareExact(d_members.download<int32_t>(want_members.size()), want_members,
                         "cluster members in order of " + what);
  if (!c.passed) return c;
  Check k = compareExact(d_card.download<int32_t>(seeds), want_card, "cluster sizes");
  if (!k.passed) return k;
  Check d = compareExact(d_diam.download<float>(seeds), want_diam, "squared cluster diameters");
  if (!d.passed) return d;
  Check bc = compareExact(d_bcard.download<int32_t>(blocks), want_bcard, "blocks' largest clusters");
  if (!bc.passed) return bc;
  Check bs = compareExact(d_bseed.download<int32_t>(blocks), want_bseed, "blocks' best seeds");
  if (!bs.passed) return bs;
  c.detail += fmt::format("; sizes, diameters and each block's best exact (mean cluster {:.1f} points)",
                          double(total) / seeds);
  return c;
}

}  // namespace

RFSIM_WORKLOAD("qtc", "quality-threshold clustering: a block grows one seed's cluster greedily, reducing in shared memory (RegDem suite: qtc)",
               "workloads/qtc/qtc.ptx", {"regdem", "shared", "barrier"}, runQtc);

}  // namespace rfsim::workloads
