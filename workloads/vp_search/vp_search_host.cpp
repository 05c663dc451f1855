#include <cstring>
#include <functional>
#include <numeric>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr int kDims = 7, kDepth = 32;

// A vantage-point tree over the reference points, as the kernel reads it:
// 12 words per node (vp_search.cu), nodes in preorder, the root first.
struct Tree {
  std::vector<float> words;
  int depth = 0;
};

void build(Tree& t, std::vector<int>& idx, size_t lo, size_t hi, const std::vector<float>& ref, int m, int level,
           const std::function<int(int, int)>& dist2) {
  t.depth = std::max(t.depth, level);
  const size_t node = t.words.size() / 12;
  t.words.resize(t.words.size() + 12, 0.0f);
  const int vp = idx[lo];
  float* w = &t.words[node * 12];
  for (int d = 0; d < kDims; ++d) w[d] = ref[size_t(d) * m + vp];
  // The rest, nearest first (ties by index); the nearer half goes inside.
  std::sort(idx.begin() + lo + 1, idx.begin() + hi, [&](int a, int b) {
    const int da = dist2(vp, a), db = dist2(vp, b);
    return da != db ? da < db : a < b;
  });
  const size_t rest = hi - lo - 1, mid = lo + 1 + (rest + 1) / 2;
  const float r_in = mid > lo + 1 ? std::sqrt(float(dist2(vp, idx[mid - 1]))) : 0.0f;
  const float r_out = mid < hi ? std::sqrt(float(dist2(vp, idx[mid]))) : 0.0f;
  int32_t inside = -1, outside = -1;
  if (mid > lo + 1) {
    inside = int32_t(t.words.size() / 12);
    build(t, idx, lo + 1, mid, ref, m, level + 1, dist2);
  }
  if (mid < hi) {
    outside = int32_t(t.words.size() / 12);
    build(t, idx, mid, hi, ref, m, level + 1, dist2);
  }
  w = &t.words[node * 12];  // the vector may have moved
  w[7] = r_in;
  const int32_t tail[4] = {0, inside, outside, vp};
  std::memcpy(&w[8], tail, sizeof tail);
  std::memcpy(&w[8], &r_out, 4);
}

Check runVpSearch(rt::Device& dev, Size size) {
  // Reference and query points in clusters of a 7-d integer grid: every
  // squared distance is an exact integer in float, so the nearest point
  // (smallest squared distance, then smallest index) must match exactly.
  // The queries come cluster by cluster (tree-traversal codes sort their
  // points so that a warp's lanes walk similar paths): a warp whose lanes
  // are spread over all clusters would visit nearly every node.
  // Small: 4 blocks of queries against 1024 points; large: 192 blocks
  // (8 per SM of the GTX Titan X's 24: its occupancy at 32 registers)
  // against 8192.
  const int n = size == Size::Small ? 4 * 256 : 192 * 256;
  const int m = size == Size::Small ? 1024 : 8192;
  const int clusters = size == Size::Small ? 16 : 64;
  Rng rng(29);
  std::vector<int> centre(size_t(clusters) * kDims);
  for (auto& v : centre) v = 8 + int(rng.below(88));
  auto point = [&](std::vector<float>& v, int count, int i, int c) {
    for (int d = 0; d < kDims; ++d)
      v[size_t(d) * count + i] = float(centre[size_t(c) * kDims + d] + int(rng.below(11)) - 5);
  };
  std::vector<float> ref(size_t(m) * kDims), q(size_t(n) * kDims);
  for (int j = 0; j < m; ++j) point(ref, m, j, int(rng.below(clusters)));
  for (int i = 0; i < n; ++i) point(q, n, i, int(int64_t(i) * clusters / n));
  auto dist2 = [&](int a, int b) {
    int s = 0;
    for (int d = 0; d < kDims; ++d) {
      const int t = int(ref[size_t(d) * m + a]) - int(ref[size_t(d) * m + b]);
      s += t * t;
    }
    return s;
  };
  Tree tree;
  std::vector<int> idx(m);
  std::iota(idx.begin(), idx.end(), 0);
  build(tree, idx, 0, size_t(m), ref, m, 1, dist2);
  if (tree.depth >= kDepth) {
    Check c;
    c.detail = fmt::format("the tree is {} levels deep; the kernel's stack holds {}", tree.depth, kDepth);
    return c;
  }
  DeviceBuffer d_tree(dev, tree.words), d_q(dev, q), d_near(dev, size_t(n) * 4), d_dist(dev, size_t(n) * 4);
  dev.launch("vp_search", {ceilDiv(n, 256)}, {256},
             rt::KernelArgs().ptr(d_tree.addr()).ptr(d_q.addr()).i32(n).ptr(d_near.addr()).ptr(d_dist.addr()));
  // The reference: every reference point, for every query.
  std::vector<int32_t> want_j(n);
  std::vector<float> want_d(n);
  for (int i = 0; i < n; ++i) {
    int best = 0x7fffffff, best_j = -1;
    for (int j = 0; j < m; ++j) {
      int s = 0;
      for (int d = 0; d < kDims; ++d) {
        const int t = int(q[size_t(d) * n + i]) - int(ref[size_t(d) * m + j]);
        s += t * t;
      }
      if (s < best) best = s, best_j = j;
    }
    want_j[i] = best_j;
    want_d[i] = float(best);
  }
  const std::string what = fmt::format("{} queries against {} points (7-d, tree {} levels deep)", n, m, tree.depth);
  Check c = compareExact(d_near.download<int32_t>(n), want_j, "nearest points of " + what);
  if (!c.passed) return c;
  Check d = compareExact(d_dist.download<float>(n), want_d, "squared nearest distances");
  if (!d.passed) return d;
  c.detail += "; squared distances exact";
  return c;
}

}  // namespace

RFSIM_WORKLOAD("vp_search", "nearest 7-d point through a vantage-point tree, a lockstep stack per warp in shared memory (RegDem suite: vp)",
               "workloads/vp_search/vp_search.ptx", {"regdem", "shared", "vote"}, runVpSearch);

}  // namespace rfsim::workloads
