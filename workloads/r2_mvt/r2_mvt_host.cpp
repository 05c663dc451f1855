#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

// A float sum's rounding error, bounded while the exact sum is accumulated
// (u = 2^-24, float's unit roundoff): every float addition rounds once, by
// at most u * |partial sum|, and a term that took r roundings of its own
// (products; an FMA's product takes none) errs by at most r * u * |term|.
// The exact partial sums stand for the float ones the kernel saw; the
// difference is second order (n u < 1e-3 for every sum here), which the
// factor 1.01 in bound() covers.
struct BoundedSum {
  double sum = 0.0, err = 0.0;
  void add(double term, int roundings) {
    sum += term;
    err += (std::fabs(sum) + roundings * std::fabs(term)) / 16777216.0;
  }
  double bound() const { return 1.01 * err; }
};

Check runMvt(rt::Device& dev, Size size) {
  // Small: A 1024 x 1024; x1 += A y1 then x2 += A^T y2, one thread per
  // element: 4 blocks of 256 per launch (a 1-D kernel has n / 256 blocks;
  // each thread's loop walks a row or a column); Large: 4096 x 4096 (16
  // blocks per launch).
  const int n = size == Size::Small ? 1024 : 4096;
  Rng rng(208);
  std::vector<float> a(size_t(n) * n), x1(n), x2(n), y1(n), y2(n);
  for (auto& v : a) v = rng.uniform(-1.0f, 1.0f);
  for (auto& v : x1) v = rng.uniform(-1.0f, 1.0f);
  for (auto& v : x2) v = rng.uniform(-1.0f, 1.0f);
  for (auto& v : y1) v = rng.uniform(-1.0f, 1.0f);
  for (auto& v : y2) v = rng.uniform(-1.0f, 1.0f);

  DeviceBuffer d_a(dev, a), d_x1(dev, x1), d_x2(dev, x2), d_y1(dev, y1), d_y2(dev, y2);
  const uint32_t block = 256;
  dev.launch("r2_mvt_kernel1", {ceilDiv(n, block)}, {block},
             rt::KernelArgs().i32(n).ptr(d_a.addr()).ptr(d_x1.addr()).ptr(d_y1.addr()));
  dev.launch("r2_mvt_kernel2", {ceilDiv(n, block)}, {block},
             rt::KernelArgs().i32(n).ptr(d_a.addr()).ptr(d_x2.addr()).ptr(d_y2.addr()));

  // Each element: its initial value (exact), then n products (one rounding
  // at most) added in order; the largest bound over the vector.
  std::vector<double> r1(n), r2(n);
  double atol1 = 0.0, atol2 = 0.0;
  for (int i = 0; i < n; ++i) {
    BoundedSum s1, s2;
    s1.add(x1[i], 0);
    s2.add(x2[i], 0);
    for (int j = 0; j < n; ++j) {
      s1.add(double(a[size_t(i) * n + j]) * y1[j], 1);
      s2.add(double(a[size_t(j) * n + i]) * y2[j], 1);
    }
    r1[i] = s1.sum;
    r2[i] = s2.sum;
    atol1 = std::max(atol1, s1.bound());
    atol2 = std::max(atol2, s2.bound());
  }
  const Check c = compareFloats(d_x1.download<float>(n), r1, 0.0, atol1, fmt::format("elements of x1 ({}x{})", n, n));
  if (!c.passed) return c;
  Check d = compareFloats(d_x2.download<float>(n), r2, 0.0, atol2, "elements of x2");
  d.detail = c.detail + "; " + d.detail;
  return d;
}

}  // namespace

RFSIM_WORKLOAD("r2_mvt", "PolyBench/GPU MVT: x1 += A y1, x2 += A^T y2 in two 1-D kernels (R2D2 suite)",
               "workloads/r2_mvt/r2_mvt.ptx", {"r2d2", "polybench", "multi-launch"}, runMvt);

}  // namespace rfsim::workloads
