#include <algorithm>
#include <cmath>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr int kTileM = 128;  // TILE_M in the kernel: rows of C per block
constexpr int kTileN = 16;   // TILE_N: columns of C per block
constexpr int kStepK = 8;    // TILE_TB_HEIGHT: the k loop's step

Check runR2Sgemm(rt::Device& dev, Size size) {
  // Small: C is 512 x 800, k = 24 (grid 4 x 50 = 200 blocks of 16 x 8
  // threads, 3 steps of the k loop each); Large: 1024 x 1024, k = 256 (512
  // blocks, 32 steps). The kernel has no bounds checks, as in Parboil: m is a
  // multiple of 128, n of 16 and k of 8.
  const int m = size == Size::Small ? 512 : 1024;
  const int n = size == Size::Small ? 800 : 1024;
  const int k = size == Size::Small ? 24 : 256;
  const float alpha = 0.75f, beta = -0.5f;
  Rng rng(201);
  std::vector<float> a(size_t(m) * k), b(size_t(n) * k), c(size_t(m) * n);
  for (auto& v : a) v = rng.uniform(-1.0f, 1.0f);
  for (auto& v : b) v = rng.uniform(-1.0f, 1.0f);
  for (auto& v : c) v = rng.uniform(-1.0f, 1.0f);

  DeviceBuffer d_a(dev, a), d_b(dev, b), d_c(dev, c);
  // Column-major: A is m x k (lda = m), B is n x k (ldb = n), C is m x n (ldc = m).
  dev.launch("r2_sgemm_nt", {uint32_t(m / kTileM), uint32_t(n / kTileN)}, {kTileN, kStepK},
             rt::KernelArgs()
                 .ptr(d_a.addr())
                 .i32(m)
                 .ptr(d_b.addr())
                 .i32(n)
                 .ptr(d_c.addr())
                 .i32(m)
                 .i32(k)
                 .f32(alpha)
                 .f32(beta));

  std::vector<double> ref(size_t(m) * n);
  double worst_magnitude = 0.0;  // max over elements of |alpha| sum |a b| + |beta c|
  for (int col = 0; col < n; ++col)
    for (int row = 0; row < m; ++row) {
      double dot = 0.0, mag = 0.0;
      for (int p = 0; p < k; ++p) {
        const double prod = double(a[size_t(p) * m + row]) * b[size_t(p) * n + col];
        dot += prod;
        mag += std::fabs(prod);
      }
      const size_t at = size_t(col) * m + row;
      ref[at] = double(c[at]) * beta + double(alpha) * dot;
      worst_magnitude = std::max(worst_magnitude, std::fabs(alpha) * mag + std::fabs(beta * c[at]));
    }
  // Each element is k multiply-adds in float in order, then a scaling by
  // alpha and a multiply-add with beta * C: k + 2 roundings, so by the
  // standard bound on a recursive dot product |error| <= (k + 2) u sum |terms|
  // (u = 2^-24; an FMA rounds once where a multiply and an add round twice,
  // so the bound covers both). Taken over the worst element's magnitude.
  const double atol = (k + 2) * std::ldexp(1.0, -24) * worst_magnitude;
  return compareFloats(d_c.download<float>(ref.size()), ref, 0.0, atol,
                       fmt::format("elements of C ({}x{}, k = {})", m, n, k));
}

}  // namespace

RFSIM_WORKLOAD("r2_sgemm",
               "Parboil sgemm (R2D2 suite): C = alpha A B^T + beta C, 128 x 16 register tiles, B^T slices in shared "
               "memory, k in steps of 8",
               "workloads/r2_sgemm/r2_sgemm.ptx", {"r2d2", "parboil", "shared", "barrier"}, runR2Sgemm);

}  // namespace rfsim::workloads
