#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr int kDims = 7, kK = 4;

Check runKnnSearch(rt::Device& dev, Size size) {
  // Small: 8 blocks of queries against 108 reference points; large: 240
  // blocks (10 per SM on 24 SMs, RegDem's occupancy) against 540.
  const int n = size == Size::Small ? 8 * 192 : 240 * 192;
  const int m = size == Size::Small ? 108 : 540;
  // Integer coordinates: distances are exact in float, so the kernel's
  // neighbours and distances must match these exactly, ties included.
  Rng rng(19);
  std::vector<float> q(size_t(n) * kDims), ref(size_t(m) * kDims);
  for (auto& v : q) v = float(rng.below(16));
  for (auto& v : ref) v = float(rng.below(16));
  DeviceBuffer d_q(dev, q), d_ref(dev, ref), d_near(dev, size_t(n) * kK * 4), d_dist(dev, size_t(n) * kK * 4);
  dev.launch("knn_search", {ceilDiv(n, 192)}, {192},
             rt::KernelArgs().ptr(d_q.addr()).i32(n).ptr(d_ref.addr()).i32(m).ptr(d_near.addr()).ptr(d_dist.addr()));
  std::vector<int32_t> want_j(size_t(n) * kK);
  std::vector<float> want_d(size_t(n) * kK);
  for (int i = 0; i < n; ++i) {
    float bd[kK];
    int bj[kK];
    for (int k = 0; k < kK; ++k) bd[k] = 3.0e38f, bj[k] = -1;
    for (int j = 0; j < m; ++j) {
      int s = 0;
      for (int d = 0; d < kDims; ++d) {
        const int t = int(q[size_t(d) * n + i]) - int(ref[size_t(d) * m + j]);
        s += t * t;
      }
      float sd = float(s);
      int idx = j;
      for (int k = 0; k < kK; ++k)
        if (sd < bd[k]) std::swap(sd, bd[k]), std::swap(idx, bj[k]);
    }
    for (int k = 0; k < kK; ++k) want_j[size_t(k) * n + i] = bj[k], want_d[size_t(k) * n + i] = bd[k];
  }
  Check c = compareExact(d_near.download<int32_t>(want_j.size()), want_j,
                         fmt::format("neighbour indices ({} queries x {} reference points, k = {})", n, m, kK));
  if (!c.passed) return c;
  return compareExact(d_dist.download<float>(want_d.size()), want_d,
                      fmt::format("neighbour distances ({} queries x {} points, k = {})", n, m, kK));
}

}  // namespace

RFSIM_WORKLOAD("knn_search", "4 nearest neighbours of 7-d points through a shared-memory tile (RegDem suite: nn)",
               "workloads/knn_search/knn_search.ptx", {"regdem", "shared", "barrier"}, runKnnSearch);

}  // namespace rfsim::workloads
