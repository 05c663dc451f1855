#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr int kDims = 7;

Check runCorrPairs(rt::Device& dev, Size size) {
  // Small: 8 blocks of queries against 144 reference points; large: 192
  // blocks (8 per SM on 24 SMs) against 576.
  const int n = size == Size::Small ? 8 * 256 : 192 * 256;
  const int m = size == Size::Small ? 144 : 576;
  // Integer coordinates: every squared distance is exact in float, so the
  // counts must match exactly.
  Rng rng(17);
  std::vector<float> q(size_t(n) * kDims), ref(size_t(m) * kDims);
  for (auto& v : q) v = float(rng.below(8));
  for (auto& v : ref) v = float(rng.below(8));
  const float radii[4] = {20.0f, 40.0f, 80.0f, 160.0f};  // squared
  DeviceBuffer d_q(dev, q), d_ref(dev, ref), d_counts(dev, size_t(n) * 4 * 4);
  dev.launch("corr_pairs", {ceilDiv(n, 256)}, {256},
             rt::KernelArgs().ptr(d_q.addr()).i32(n).ptr(d_ref.addr()).i32(m).f32(radii[0]).f32(radii[1])
                 .f32(radii[2]).f32(radii[3]).ptr(d_counts.addr()));
  std::vector<uint32_t> want(size_t(n) * 4, 0);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) {
      int s = 0;
      for (int d = 0; d < kDims; ++d) {
        const int t = int(q[size_t(d) * n + i]) - int(ref[size_t(d) * m + j]);
        s += t * t;
      }
      for (int b = 0; b < 4; ++b) want[size_t(b) * n + i] += float(s) <= radii[b];
    }
  return compareExact(d_counts.download<uint32_t>(want.size()), want,
                      fmt::format("pair counts in 4 radius bins ({} queries x {} reference points)", n, m));
}

}  // namespace

RFSIM_WORKLOAD("corr_pairs", "two-point correlation of 7-d points through a shared-memory tile (RegDem suite: pc)",
               "workloads/corr_pairs/corr_pairs.ptx", {"regdem", "shared", "barrier"}, runCorrPairs);

}  // namespace rfsim::workloads
