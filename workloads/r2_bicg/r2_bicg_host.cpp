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

Check runBicg(rt::Device& dev, Size size) {
  // Small: A 1024 x 1024; s = A^T r with one thread per column, q = A p
  // with one thread per row: 4 blocks of 256 per launch (a 1-D kernel has
  // n / 256 blocks; each thread's loop walks the other dimension); Large:
  // A 4096 x 4096 (16 blocks per launch).
  const int nx = size == Size::Small ? 1024 : 4096;
  const int ny = size == Size::Small ? 1024 : 4096;
  Rng rng(207);
  std::vector<float> A(size_t(nx) * ny), r(nx), p(ny);
  for (auto& v : A) v = rng.uniform(-1.0f, 1.0f);
  for (auto& v : r) v = rng.uniform(-1.0f, 1.0f);
  for (auto& v : p) v = rng.uniform(-1.0f, 1.0f);

  DeviceBuffer d_A(dev, A), d_r(dev, r), d_p(dev, p), d_s(dev, size_t(ny) * sizeof(float)),
      d_q(dev, size_t(nx) * sizeof(float));
  const uint32_t block = 256;
  dev.launch("r2_bicg_kernel1", {ceilDiv(ny, block)}, {block},
             rt::KernelArgs().i32(nx).i32(ny).ptr(d_A.addr()).ptr(d_r.addr()).ptr(d_s.addr()));
  dev.launch("r2_bicg_kernel2", {ceilDiv(nx, block)}, {block},
             rt::KernelArgs().i32(nx).i32(ny).ptr(d_A.addr()).ptr(d_p.addr()).ptr(d_q.addr()));

  // Each element of s and q: products (one rounding at most) added in
  // order; the largest bound over the vector.
  std::vector<double> s(ny), q(nx);
  double s_atol = 0.0, q_atol = 0.0;
  for (int j = 0; j < ny; ++j) {
    BoundedSum sum;
    for (int i = 0; i < nx; ++i) sum.add(double(r[i]) * A[size_t(i) * ny + j], 1);
    s[j] = sum.sum;
    s_atol = std::max(s_atol, sum.bound());
  }
  for (int i = 0; i < nx; ++i) {
    BoundedSum sum;
    for (int j = 0; j < ny; ++j) sum.add(double(A[size_t(i) * ny + j]) * p[j], 1);
    q[i] = sum.sum;
    q_atol = std::max(q_atol, sum.bound());
  }
  const Check c =
      compareFloats(d_s.download<float>(ny), s, 0.0, s_atol, fmt::format("elements of s = A^T r ({}x{})", nx, ny));
  if (!c.passed) return c;
  Check d = compareFloats(d_q.download<float>(nx), q, 0.0, q_atol, "elements of q = A p");
  d.detail = c.detail + "; " + d.detail;
  return d;
}

}  // namespace

RFSIM_WORKLOAD("r2_bicg", "PolyBench/GPU BICG: s = A^T r and q = A p in two 1-D kernels (R2D2 suite)",
               "workloads/r2_bicg/r2_bicg.ptx", {"r2d2", "polybench", "multi-launch"}, runBicg);

}  // namespace rfsim::workloads
