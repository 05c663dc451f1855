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

Check runAtax(rt::Device& dev, Size size) {
  // Small: A 1024 x 1024; tmp = A x with one thread per row, then
  // y = A^T tmp with one thread per column: 4 blocks of 256 per launch (a
  // 1-D kernel has n / 256 blocks; each thread's loop walks the other
  // dimension); Large: A 4096 x 4096 (16 blocks per launch).
  const int nx = size == Size::Small ? 1024 : 4096;
  const int ny = size == Size::Small ? 1024 : 4096;
  Rng rng(206);
  std::vector<float> A(size_t(nx) * ny), x(ny);
  for (auto& v : A) v = rng.uniform(-1.0f, 1.0f);
  for (auto& v : x) v = rng.uniform(-1.0f, 1.0f);

  DeviceBuffer d_A(dev, A), d_x(dev, x), d_tmp(dev, size_t(nx) * sizeof(float)),
      d_y(dev, size_t(ny) * sizeof(float));
  const uint32_t block = 256;
  dev.launch("r2_atax_kernel1", {ceilDiv(nx, block)}, {block},
             rt::KernelArgs().i32(nx).i32(ny).ptr(d_A.addr()).ptr(d_x.addr()).ptr(d_tmp.addr()));
  dev.launch("r2_atax_kernel2", {ceilDiv(ny, block)}, {block},
             rt::KernelArgs().i32(nx).i32(ny).ptr(d_A.addr()).ptr(d_tmp.addr()).ptr(d_y.addr()));

  // tmp: ny products (one rounding at most) added in order.
  std::vector<double> tmp(nx);
  double tmp_atol = 0.0;
  for (int i = 0; i < nx; ++i) {
    BoundedSum s;
    for (int j = 0; j < ny; ++j) s.add(double(A[size_t(i) * ny + j]) * x[j], 1);
    tmp[i] = s.sum;
    tmp_atol = std::max(tmp_atol, s.bound());
  }
  const std::vector<float> got_tmp = d_tmp.download<float>(nx);
  const Check c = compareFloats(got_tmp, tmp, 0.0, tmp_atol, fmt::format("elements of tmp = A x ({}x{})", nx, ny));
  if (!c.passed) return c;

  // y from the kernel's own (checked) tmp, so that tmp's rounding does not
  // carry over: nx products (one rounding at most) added in order.
  std::vector<double> y(ny);
  double atol = 0.0;
  for (int j = 0; j < ny; ++j) {
    BoundedSum s;
    for (int i = 0; i < nx; ++i) s.add(double(A[size_t(i) * ny + j]) * got_tmp[i], 1);
    y[j] = s.sum;
    atol = std::max(atol, s.bound());
  }
  Check d = compareFloats(d_y.download<float>(ny), y, 0.0, atol, "elements of y = A^T tmp");
  d.detail = c.detail + "; " + d.detail;
  return d;
}

}  // namespace

RFSIM_WORKLOAD("r2_atax", "PolyBench/GPU ATAX: y = A^T (A x) in two 1-D kernels (R2D2 suite)",
               "workloads/r2_atax/r2_atax.ptx", {"r2d2", "polybench", "multi-launch"}, runAtax);

}  // namespace rfsim::workloads
