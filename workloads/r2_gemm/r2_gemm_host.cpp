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

Check runGemm(rt::Device& dev, Size size) {
  // Small: C 256 x 256 with a short inner dimension of 32, one launch of
  // 8 x 32 blocks of 32 x 8 threads (256 blocks); Large: 512 x 512 x 512
  // (16 x 64 blocks).
  const int ni = size == Size::Small ? 256 : 512;
  const int nj = size == Size::Small ? 256 : 512;
  const int nk = size == Size::Small ? 32 : 512;
  const float alpha = 1.25f, beta = -0.75f;
  Rng rng(203);
  std::vector<float> A(size_t(ni) * nk), B(size_t(nk) * nj), C(size_t(ni) * nj);
  for (auto& v : A) v = rng.uniform(-1.0f, 1.0f);
  for (auto& v : B) v = rng.uniform(-1.0f, 1.0f);
  for (auto& v : C) v = rng.uniform(-1.0f, 1.0f);

  DeviceBuffer d_A(dev, A), d_B(dev, B), d_C(dev, C);
  const rt::Dim3 block{32, 8, 1};
  dev.launch("r2_gemm", {ceilDiv(nj, block.x), ceilDiv(ni, block.y)}, block,
             rt::KernelArgs().i32(ni).i32(nj).i32(nk).f32(alpha).f32(beta).ptr(d_A.addr()).ptr(d_B.addr()).ptr(
                 d_C.addr()));

  // Each element: beta*C (one rounding), then nk terms alpha*A*B (two
  // roundings at most) added in order; the largest bound over C.
  std::vector<double> ref(size_t(ni) * nj);
  double atol = 0.0;
  for (int i = 0; i < ni; ++i)
    for (int j = 0; j < nj; ++j) {
      BoundedSum s;
      s.add(double(beta) * C[size_t(i) * nj + j], 1);
      for (int k = 0; k < nk; ++k) s.add(double(alpha) * A[size_t(i) * nk + k] * B[size_t(k) * nj + j], 2);
      ref[size_t(i) * nj + j] = s.sum;
      atol = std::max(atol, s.bound());
    }
  return compareFloats(d_C.download<float>(size_t(ni) * nj), ref, 0.0, atol,
                       fmt::format("elements of C ({}x{}x{})", ni, nj, nk));
}

}  // namespace

RFSIM_WORKLOAD("r2_gemm", "PolyBench/GPU GEMM: C = alpha*A*B + beta*C, one thread per element (R2D2 suite)",
               "workloads/r2_gemm/r2_gemm.ptx", {"r2d2", "polybench"}, runGemm);

}  // namespace rfsim::workloads
