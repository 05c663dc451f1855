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

Check runGesummv(rt::Device& dev, Size size) {
  // Small: A and B 768 x 768, one thread per row: 3 blocks of 256 (a 1-D
  // kernel has n / 256 blocks; each thread's loop walks its row, two
  // uncoalesced loads per step, so the timing model's cycles grow with n);
  // Large: 4096 x 4096 (16 blocks).
  const int n = size == Size::Small ? 768 : 4096;
  const float alpha = 1.5f, beta = -0.5f;
  Rng rng(209);
  std::vector<float> A(size_t(n) * n), B(size_t(n) * n), x(n);
  for (auto& v : A) v = rng.uniform(-1.0f, 1.0f);
  for (auto& v : B) v = rng.uniform(-1.0f, 1.0f);
  for (auto& v : x) v = rng.uniform(-1.0f, 1.0f);

  DeviceBuffer d_A(dev, A), d_B(dev, B), d_tmp(dev, size_t(n) * sizeof(float)), d_x(dev, x),
      d_y(dev, size_t(n) * sizeof(float));
  const uint32_t block = 256;
  dev.launch("r2_gesummv", {ceilDiv(n, block)}, {block},
             rt::KernelArgs()
                 .i32(n)
                 .f32(alpha)
                 .f32(beta)
                 .ptr(d_A.addr())
                 .ptr(d_B.addr())
                 .ptr(d_tmp.addr())
                 .ptr(d_x.addr())
                 .ptr(d_y.addr()));

  // tmp = A x (left in tmp by the kernel) and B x: n products (one rounding
  // at most) added in order. y = alpha * tmp + beta * (B x) from the
  // kernel's own (checked) tmp: B x's bound scaled by |beta|, plus at most
  // two roundings of the last step (the product beta * (B x) and the sum;
  // alpha * tmp fused or a third rounding, counted too) on
  // |alpha tmp| + |beta (B x)~|.
  const double u = 1.0 / 16777216.0;
  const std::vector<float> got_tmp = d_tmp.download<float>(n);
  std::vector<double> tmp(n), y(n);
  double tmp_atol = 0.0, atol = 0.0;
  for (int i = 0; i < n; ++i) {
    BoundedSum ax, bx;
    for (int j = 0; j < n; ++j) {
      ax.add(double(A[size_t(i) * n + j]) * x[j], 1);
      bx.add(double(B[size_t(i) * n + j]) * x[j], 1);
    }
    tmp[i] = ax.sum;
    tmp_atol = std::max(tmp_atol, ax.bound());
    y[i] = alpha * double(got_tmp[i]) + beta * bx.sum;
    const double last = std::fabs(alpha * double(got_tmp[i])) + std::fabs(beta) * (std::fabs(bx.sum) + bx.bound());
    atol = std::max(atol, std::fabs(beta) * bx.bound() + 3 * u * last);
  }
  const Check c = compareFloats(got_tmp, tmp, 0.0, tmp_atol, fmt::format("elements of tmp = A x ({}x{})", n, n));
  if (!c.passed) return c;
  Check d = compareFloats(d_y.download<float>(n), y, 0.0, atol, "elements of y = alpha A x + beta B x");
  d.detail = c.detail + "; " + d.detail;
  return d;
}

}  // namespace

RFSIM_WORKLOAD("r2_gesummv", "PolyBench/GPU GESUMMV: y = alpha*A*x + beta*B*x, one 1-D kernel (R2D2 suite)",
               "workloads/r2_gesummv/r2_gesummv.ptx", {"r2d2", "polybench"}, runGesummv);

}  // namespace rfsim::workloads
