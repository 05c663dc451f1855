#include <utility>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr int kMetricL2 = 0;  // METRIC_L2 in mlchain.cu
constexpr int kDimBlock = 4;  // DIM_BLOCK

// The device code of mlchain.cu, on the host: the same float operations
// (subtractions, fmas, correctly rounded divisions and one multiplication per
// distance) in the same order, so the results are bit-identical.
struct Ref {
  const std::vector<float>& pts;
  const std::vector<int>& cols;
  int n, k, d;

  float l2(const float* x, const float* y) const {
    float acc = 0.0f;
    const int half = d / 2;
    for (int range = 0; range < 2; ++range) {
      const int j0 = range == 0 ? 0 : half, j1 = range == 0 ? half : d;
      for (int j = j0; j < j1; j += kDimBlock) {
        for (int t = j; t < std::min(j + kDimBlock, j1); ++t) {
          const int c = cols[std::min(std::max(t, 0), d - 1)];
          const float diff = x[c] - y[c];
          acc = std::fmaf(diff, diff, acc);
        }
      }
    }
    return acc;
  }
  float distance(const float* x, const float* y) const {
    const float inv_d = 1.0f / static_cast<float>(d);
    return l2(x, y) * inv_d;
  }
  void assign(const std::vector<float>& cents, std::vector<int>& labels, std::vector<float>& dists) const {
    for (int p = 0; p < n; ++p) {
      const float* x = &pts[size_t(p) * d];
      int best = 0;
      float best_dist = distance(x, &cents[0]);
      for (int c = 1; c < k; ++c) {
        const float dist = distance(x, &cents[size_t(c) * d]);
        if (dist < best_dist) best_dist = dist, best = c;
      }
      labels[p] = best;
      dists[p] = distance(x, &cents[size_t(best) * d]);
    }
  }
  void update(const std::vector<int>& labels, std::vector<float>& cents) const {
    for (int c = 0; c < k; ++c) {
      int count = 0;
      for (int p = 0; p < n; ++p) count += labels[p] == c;
      if (count == 0) continue;
      for (int j = 0; j < d; ++j) {
        float sum = 0.0f;
        for (int p = 0; p < n; ++p) sum += labels[p] == c ? pts[size_t(p) * d + j] : 0.0f;
        cents[size_t(c) * d + j] = sum / static_cast<float>(count);
      }
    }
  }
};

Check runMlchain(rt::Device& dev, Size size) {
  // Small: 512 points, 8 features, 8 clusters, 2 iterations (each point's
  // assignment is 9 distances of 8 features: about 560 calls). Large: 4096
  // points, 16 clusters, 3 iterations (24x the calls).
  const int n = size == Size::Small ? 512 : 4096;
  const int k = size == Size::Small ? 8 : 16;
  const int d = 8;
  const int iters = size == Size::Small ? 2 : 3;
  Rng rng(67);
  // Points scattered around k hidden centres (overlapping clusters, so the
  // assignments change between iterations); the column map is a permutation.
  std::vector<float> centres(size_t(k) * d), pts(size_t(n) * d);
  for (auto& v : centres) v = rng.uniform(-4.0f, 4.0f);
  for (int p = 0; p < n; ++p) {
    const int c = int(rng.below(uint32_t(k)));
    for (int j = 0; j < d; ++j) {
      pts[size_t(p) * d + j] = centres[size_t(c) * d + j] + rng.uniform(-1.5f, 1.5f) + rng.uniform(-1.5f, 1.5f);
    }
  }
  std::vector<int> cols(d);
  for (int j = 0; j < d; ++j) cols[j] = j;
  for (int j = d - 1; j > 0; --j) std::swap(cols[j], cols[rng.below(uint32_t(j + 1))]);
  // Initial centroids: the first k points (Forgy).
  std::vector<float> cents(pts.begin(), pts.begin() + size_t(k) * d);

  DeviceBuffer d_pts(dev, pts), d_cents(dev, cents), d_cols(dev, cols), d_labels(dev, size_t(n) * sizeof(int)),
      d_dists(dev, size_t(n) * sizeof(float));
  const uint32_t block = 128;
  for (int it = 0; it < iters; ++it) {
    dev.launch("kmeans_assign", {ceilDiv(n, block)}, {block},
               rt::KernelArgs()
                   .ptr(d_pts.addr())
                   .ptr(d_cents.addr())
                   .ptr(d_labels.addr())
                   .ptr(d_dists.addr())
                   .ptr(d_cols.addr())
                   .i32(n)
                   .i32(k)
                   .i32(d)
                   .i32(kMetricL2));
    dev.launch("kmeans_update", {ceilDiv(k * d, block)}, {block},
               rt::KernelArgs().ptr(d_pts.addr()).ptr(d_labels.addr()).ptr(d_cents.addr()).i32(n).i32(k).i32(d));
  }

  Ref ref{pts, cols, n, k, d};
  std::vector<int> labels(n), prev;
  std::vector<float> dists(n);
  int changed = 0;
  for (int it = 0; it < iters; ++it) {
    prev = labels;
    ref.assign(cents, labels, dists);
    ref.update(labels, cents);
  }
  for (int p = 0; p < n; ++p) changed += labels[p] != prev[p];
  std::vector<int> sizes(k, 0);
  for (int l : labels) ++sizes[l];
  const int empty = int(std::count(sizes.begin(), sizes.end(), 0));

  Check c = compareExact(d_labels.download<int>(n), labels,
                         fmt::format("assignments of {} points ({} features, {} clusters) after {} iterations", n, d, k,
                                     iters));
  if (!c.passed) return c;
  // Same operations in the same order: expected bit-identical; the
  // tolerance only bounds what a difference would be reported as.
  Check cc = compareFloats(d_cents.download<float>(size_t(k) * d),
                           std::vector<double>(cents.begin(), cents.end()), 1e-5, 1e-6, "centroid coordinates");
  if (!cc.passed) return cc;
  Check cd = compareFloats(d_dists.download<float>(n), std::vector<double>(dists.begin(), dists.end()), 1e-5, 1e-6,
                           "distances to the assigned centroid");
  if (!cd.passed) return cd;
  c.detail += fmt::format("; {}; {} ({} labels changed in the last iteration, {} empty clusters)", cc.detail, cd.detail,
                          changed, empty);
  return c;
}

}  // namespace

RFSIM_WORKLOAD("mlchain",
               "k-means assign + update in the style of cuML: distances through an 11-deep chain of library helpers "
               "(metric dispatch, dimension blocks, column map) in a second translation unit the model links, no "
               "atomics",
               "workloads/mlchain/mlchain.ptx", {"calls", "divergence", "spills", "multi-launch"}, runMlchain,
               {"workloads/mlchain/lib/mlchain_lib.ptx"});

}  // namespace rfsim::workloads
