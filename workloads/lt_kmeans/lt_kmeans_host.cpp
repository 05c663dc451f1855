#include <cmath>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr int kMaxCentres = 16, kMaxFeatures = 32;  // the kernel's constant array

// The kernel's distance, bit for bit: fmaf in feature order.
int nearest(const std::vector<float>& features, int npoints, int p, const std::vector<float>& centres, int k,
            int nf) {
  int best = 0;
  float best_dist = 3.4e38f;
  for (int c = 0; c < k; ++c) {
    float dist = 0.0f;
    for (int f = 0; f < nf; ++f) {
      const float d = features[size_t(f) * npoints + p] - centres[size_t(c) * nf + f];
      dist = std::fmaf(d, d, dist);
    }
    if (dist < best_dist) best_dist = dist, best = c;
  }
  return best;
}

Check runKmeans(rt::Device& dev, Size size) {
  // Small: 16384 points of 8 features, 5 centres, 2 iterations (64 blocks
  // of 256 per launch); Large: 494020 points (Rodinia's kdd_cup size) of
  // 32 features, 5 centres (Rodinia's default), 3 iterations.
  const int npoints = size == Size::Small ? 16384 : 494020;
  const int nf = size == Size::Small ? 8 : 32;
  const int k = 5;
  const int iterations = size == Size::Small ? 2 : 3;
  static_assert(5 <= kMaxCentres && 32 <= kMaxFeatures, "the centres must fit the kernel's constant array");
  Rng rng(40);
  // Points around k true centres, feature-major.
  std::vector<float> truth(size_t(k) * nf);
  for (auto& v : truth) v = rng.uniform(-10.0f, 10.0f);
  std::vector<float> features(size_t(nf) * npoints);
  for (int p = 0; p < npoints; ++p) {
    const int c = int(rng.below(k));
    for (int f = 0; f < nf; ++f)
      features[size_t(f) * npoints + p] = truth[size_t(c) * nf + f] + rng.uniform(-6.0f, 6.0f);
  }
  // The initial centres: the first k points (as Rodinia).
  std::vector<float> centres(size_t(k) * nf);
  for (int c = 0; c < k; ++c)
    for (int f = 0; f < nf; ++f) centres[size_t(c) * nf + f] = features[size_t(f) * npoints + c];

  DeviceBuffer d_features(dev, features), d_membership(dev, size_t(npoints) * sizeof(int));
  const uint32_t block = 256;
  long changed_total = 0;
  std::vector<int> previous(npoints, -1);
  for (int it = 0; it < iterations; ++it) {
    dev.memcpyHtoD(dev.symbolAddress("c_centres"), centres.data(), centres.size() * sizeof(float));
    dev.launch("lt_kmeans_assign", {ceilDiv(npoints, block)}, {block},
               rt::KernelArgs().ptr(d_features.addr()).i32(npoints).i32(nf).i32(k).ptr(d_membership.addr()));
    const std::vector<int> got = d_membership.download<int>(npoints);
    std::vector<int> want(npoints);
    for (int p = 0; p < npoints; ++p) want[p] = nearest(features, npoints, p, centres, k, nf);
    Check c = compareExact(got, want, fmt::format("memberships of iteration {}", it));
    if (!c.passed) return c;
    if (it > 0)
      for (int p = 0; p < npoints; ++p) changed_total += got[p] != previous[p];
    previous = got;
    // The host's update (Rodinia's): each centre the mean of its members,
    // in double, rounded to float; an empty cluster keeps its centre.
    std::vector<double> sum(size_t(k) * nf, 0.0);
    std::vector<int> count(k, 0);
    for (int p = 0; p < npoints; ++p) {
      ++count[got[p]];
      for (int f = 0; f < nf; ++f) sum[size_t(got[p]) * nf + f] += features[size_t(f) * npoints + p];
    }
    for (int c2 = 0; c2 < k; ++c2)
      if (count[c2])
        for (int f = 0; f < nf; ++f) centres[size_t(c2) * nf + f] = float(sum[size_t(c2) * nf + f] / count[c2]);
  }
  Check c;
  c.passed = true;
  c.detail = fmt::format("{} points x {} features, {} centres, {} iterations: every iteration's memberships exact "
                         "(fmaf distances on the host), {} points moved after the first",
                         npoints, nf, k, iterations, changed_total);
  return c;
}

}  // namespace

RFSIM_WORKLOAD("lt_kmeans",
               "k-means assignment step: nearest of the centres in constant memory per point, centres updated on "
               "the host between launches (LTRF suite)",
               "workloads/lt_kmeans/lt_kmeans.ptx", {"ltrf", "reginsens", "constant", "memory", "multi-launch"},
               runKmeans);

}  // namespace rfsim::workloads
