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

Check run2mm(rt::Device& dev, Size size) {
  // Small: tmp = alpha*A*B is 256 x 32 (inner dimension 64), then D =
  // beta*D + tmp*C is 256 x 256 (inner dimension 32): 1 x 32 then 8 x 32
  // blocks of 32 x 8 threads (288 blocks in two launches); Large: every
  // dimension 512 (16 x 64 blocks per launch).
  const int ni = size == Size::Small ? 256 : 512;
  const int nj = size == Size::Small ? 32 : 512;
  const int nk = size == Size::Small ? 64 : 512;
  const int nl = size == Size::Small ? 256 : 512;
  const float alpha = 1.5f, beta = 0.75f;
  Rng rng(204);
  std::vector<float> A(size_t(ni) * nk), B(size_t(nk) * nj), C(size_t(nj) * nl), D(size_t(ni) * nl);
  for (auto& v : A) v = rng.uniform(-1.0f, 1.0f);
  for (auto& v : B) v = rng.uniform(-1.0f, 1.0f);
  for (auto& v : C) v = rng.uniform(-1.0f, 1.0f);
  for (auto& v : D) v = rng.uniform(-1.0f, 1.0f);

  DeviceBuffer d_A(dev, A), d_B(dev, B), d_C(dev, C), d_D(dev, D), d_tmp(dev, size_t(ni) * nj * sizeof(float));
  const rt::Dim3 block{32, 8, 1};
  dev.launch("r2_2mm_kernel1", {ceilDiv(nj, block.x), ceilDiv(ni, block.y)}, block,
             rt::KernelArgs().i32(ni).i32(nj).i32(nk).f32(alpha).ptr(d_A.addr()).ptr(d_B.addr()).ptr(d_tmp.addr()));
  dev.launch("r2_2mm_kernel2", {ceilDiv(nl, block.x), ceilDiv(ni, block.y)}, block,
             rt::KernelArgs().i32(ni).i32(nl).i32(nj).f32(beta).ptr(d_tmp.addr()).ptr(d_C.addr()).ptr(d_D.addr()));

  // tmp: nk terms alpha*A*B (two roundings at most) added in order.
  std::vector<double> tmp(size_t(ni) * nj);
  double tmp_atol = 0.0;
  for (int i = 0; i < ni; ++i)
    for (int j = 0; j < nj; ++j) {
      BoundedSum s;
      for (int k = 0; k < nk; ++k) s.add(double(alpha) * A[size_t(i) * nk + k] * B[size_t(k) * nj + j], 2);
      tmp[size_t(i) * nj + j] = s.sum;
      tmp_atol = std::max(tmp_atol, s.bound());
    }
  const std::vector<float> got_tmp = d_tmp.download<float>(size_t(ni) * nj);
  Check c = compareFloats(got_tmp, tmp, 0.0, tmp_atol, fmt::format("elements of tmp ({}x{}x{})", ni, nj, nk));
  if (!c.passed) return c;

  // D from the kernel's own (checked) tmp, so that tmp's rounding does not
  // carry over: beta*D (one rounding), then nj products (one rounding at
  // most) added in order.
  std::vector<double> ref(size_t(ni) * nl);
  double atol = 0.0;
  for (int i = 0; i < ni; ++i)
    for (int l = 0; l < nl; ++l) {
      BoundedSum s;
      s.add(double(beta) * D[size_t(i) * nl + l], 1);
      for (int j = 0; j < nj; ++j) s.add(double(got_tmp[size_t(i) * nj + j]) * C[size_t(j) * nl + l], 1);
      ref[size_t(i) * nl + l] = s.sum;
      atol = std::max(atol, s.bound());
    }
  Check d = compareFloats(d_D.download<float>(size_t(ni) * nl), ref, 0.0, atol,
                          fmt::format("elements of D ({}x{}x{})", ni, nl, nj));
  d.detail = c.detail + "; " + d.detail;
  return d;
}

}  // namespace

RFSIM_WORKLOAD("r2_2mm", "PolyBench/GPU 2MM: tmp = alpha*A*B, D = beta*D + tmp*C in two kernels (R2D2 suite)",
               "workloads/r2_2mm/r2_2mm.ptx", {"r2d2", "polybench", "multi-launch"}, run2mm);

}  // namespace rfsim::workloads
