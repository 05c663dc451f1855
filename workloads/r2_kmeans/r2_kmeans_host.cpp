#include <cfloat>
#include <cmath>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr uint32_t kThreads = 256;  // Rodinia's num_threads_perdim^2

Check runR2Kmeans(rt::Device& dev, Size size) {
  // Small: 32768 points x 6 features, 5 clusters, 2 iterations: 144 blocks
  // of 256 for r2_invert_mapping, a 12 x 12 grid of 256-thread blocks per
  // r2_kmeans_point (128 of them with points; 1.6 blocks per SM); Large: 262144 points x 16 features,
  // 5 clusters, 3 iterations, 32 x 32 grids.
  const int npoints = size == Size::Small ? 32768 : 262144;
  const int nfeatures = size == Size::Small ? 6 : 16;
  const int nclusters = 5;
  const int iterations = size == Size::Small ? 2 : 3;
  Rng rng(209);
  // Points around five random centres (spread 0.3 in a unit cube per
  // feature), so the clusters are real and some points change sides.
  std::vector<float> truth(size_t(nclusters) * nfeatures);
  for (auto& v : truth) v = rng.uniform(0.0f, 1.0f);
  std::vector<float> points(size_t(npoints) * nfeatures);
  for (int p = 0; p < npoints; ++p) {
    const int c = static_cast<int>(rng.below(nclusters));
    for (int f = 0; f < nfeatures; ++f)
      points[size_t(p) * nfeatures + f] = truth[size_t(c) * nfeatures + f] + rng.uniform(-0.3f, 0.3f);
  }
  // Rodinia starts from random points as the centres.
  std::vector<float> clusters(size_t(nclusters) * nfeatures);
  for (int c = 0; c < nclusters; ++c) {
    const size_t p = rng.below(npoints);
    for (int f = 0; f < nfeatures; ++f) clusters[size_t(c) * nfeatures + f] = points[p * nfeatures + f];
  }

  // Rodinia's grid: the blocks rounded up to a square.
  uint32_t blocks = ceilDiv(npoints, kThreads);
  uint32_t perdim = uint32_t(std::sqrt(double(blocks)));
  while (perdim * perdim < blocks) ++perdim;
  blocks = perdim * perdim;

  DeviceBuffer d_points(dev, points), d_features(dev, points.size() * sizeof(float)),
      d_membership(dev, size_t(npoints) * sizeof(int)), d_clusters(dev, clusters);
  dev.launch("r2_invert_mapping", {blocks}, {kThreads},
             rt::KernelArgs().ptr(d_points.addr()).ptr(d_features.addr()).i32(npoints).i32(nfeatures));
  std::vector<float> flipped(points.size());
  for (int p = 0; p < npoints; ++p)
    for (int f = 0; f < nfeatures; ++f) flipped[size_t(f) * npoints + p] = points[size_t(p) * nfeatures + f];
  Check inv = compareExact(d_features.download<float>(points.size()), flipped, "feature-major features");
  if (!inv.passed) return inv;

  std::vector<int> prev(npoints, -1);
  int moved_last = 0;
  for (int it = 0; it < iterations; ++it) {
    d_clusters.upload(clusters);
    dev.launch("r2_kmeans_point", {perdim, perdim}, {kThreads},
               rt::KernelArgs()
                   .ptr(d_features.addr())
                   .i32(nfeatures)
                   .i32(npoints)
                   .i32(nclusters)
                   .ptr(d_membership.addr())
                   .ptr(d_clusters.addr()));
    std::vector<int> got = d_membership.download<int>(npoints);

    // nvcc accumulates the squared distance as fma(diff, diff, ans) from 0
    // in feature order; with fmaf the reference gets the same distances and
    // the same strict-less-than choice, so memberships match exactly.
    std::vector<int> ref(npoints);
    for (int p = 0; p < npoints; ++p) {
      float min_dist = FLT_MAX;
      int index = -1;
      for (int c = 0; c < nclusters; ++c) {
        float ans = 0.0f;
        for (int f = 0; f < nfeatures; ++f) {
          const float diff = flipped[size_t(f) * npoints + p] - clusters[size_t(c) * nfeatures + f];
          ans = std::fmaf(diff, diff, ans);
        }
        if (ans < min_dist) {
          min_dist = ans;
          index = c;
        }
      }
      ref[p] = index;
    }
    Check c = compareExact(got, ref, fmt::format("memberships of iteration {}", it + 1));
    if (!c.passed) return c;

    // The host's part (Rodinia's kmeans_clustering): every centre becomes
    // the mean of its points; a centre without points stays.
    std::vector<double> sum(clusters.size(), 0.0);
    std::vector<int> count(nclusters, 0);
    moved_last = 0;
    for (int p = 0; p < npoints; ++p) {
      moved_last += got[p] != prev[p];
      ++count[got[p]];
      for (int f = 0; f < nfeatures; ++f) sum[size_t(got[p]) * nfeatures + f] += points[size_t(p) * nfeatures + f];
    }
    for (int cl = 0; cl < nclusters; ++cl)
      if (count[cl] > 0)
        for (int f = 0; f < nfeatures; ++f)
          clusters[size_t(cl) * nfeatures + f] = float(sum[size_t(cl) * nfeatures + f] / count[cl]);
    prev = got;
  }
  return Check{true, fmt::format("{} points x {} features, {} clusters, {} iterations on {}x{} grids of {}: "
                                 "features flipped exactly, every iteration's memberships exact, {} points "
                                 "changed centre in the last",
                                 npoints, nfeatures, nclusters, iterations, perdim, perdim, kThreads, moved_last)};
}

}  // namespace

RFSIM_WORKLOAD("r2_kmeans",
               "Rodinia kmeans: feature-major transpose and nearest-centre assignment, 256-thread blocks, host "
               "centre updates between iterations (R2D2 suite)",
               "workloads/r2_kmeans/r2_kmeans.ptx", {"r2d2", "rodinia", "multi-launch"}, runR2Kmeans);

}  // namespace rfsim::workloads
