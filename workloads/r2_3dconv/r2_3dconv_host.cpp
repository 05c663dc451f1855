#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

// The kernel's taps: plane offset di, row offset dj, column offset dk and
// coefficient (the same float constants).
struct Tap {
  int di, dj, dk;
  float w;
};
constexpr Tap kTaps[] = {
    {-1, -1, -1, 0.2f}, {-1, 0, 0, -0.35f}, {-1, 1, 1, 0.15f},                                       // plane i-1
    {0, -1, 0, -0.4f},  {0, 0, -1, 0.55f},  {0, 0, 0, -0.25f},  {0, 0, 1, 0.45f}, {0, 1, 0, -0.65f},  // plane i
    {1, -1, -1, 0.7f},  {1, 0, 0, -0.1f},   {1, 1, 1, 0.3f},                                         // plane i+1
};
constexpr int kNumTaps = sizeof(kTaps) / sizeof(kTaps[0]);

Check run3dConv(rt::Device& dev, Size size) {
  // Small: a 7 x 256 x 256 volume (i x j x k), one launch per interior
  // i-plane: 5 launches of 8 x 32 blocks of 32 x 8 threads (1280 blocks);
  // Large: 256 x 256 x 256, 254 launches of 8 x 32 blocks.
  const int ni = size == Size::Small ? 7 : 256;
  const int nj = 256;
  const int nk = 256;
  const size_t points = size_t(ni) * nj * nk;
  Rng rng(202);
  std::vector<float> A(points);
  for (auto& v : A) v = rng.uniform(-1.0f, 1.0f);

  DeviceBuffer d_A(dev, A), d_B(dev, points * sizeof(float));
  d_B.zero();  // the border is not written: it stays 0
  const rt::Dim3 block{32, 8, 1};
  const rt::Dim3 grid{ceilDiv(nk, block.x), ceilDiv(nj, block.y), 1};
  for (int i = 1; i < ni - 1; ++i)
    dev.launch("r2_3dconv", grid, block,
               rt::KernelArgs().i32(ni).i32(nj).i32(nk).ptr(d_A.addr()).ptr(d_B.addr()).i32(i));

  std::vector<double> ref(points, 0.0);
  double max_abs_terms = 0.0;  // the largest sum of |coefficient * input| over the points
  const size_t plane = size_t(nj) * nk;
  for (int i = 1; i < ni - 1; ++i)
    for (int j = 1; j < nj - 1; ++j)
      for (int k = 1; k < nk - 1; ++k) {
        double acc = 0.0, abs_terms = 0.0;
        for (const Tap& t : kTaps) {
          const double term = double(t.w) * A[(i + t.di) * plane + size_t(j + t.dj) * nk + (k + t.dk)];
          acc += term;
          abs_terms += std::fabs(term);
        }
        ref[i * plane + size_t(j) * nk + k] = acc;
        max_abs_terms = std::max(max_abs_terms, abs_terms);
      }
  // Eleven float products summed in float: each product rounds at most once
  // (none where nvcc fused it into an FMA) and each of the ten additions
  // once, so |error| <= gamma_12 * sum|terms| (Higham's bound, gamma_n = n u /
  // (1 - n u), u = 2^-24), taken at the largest sum over the volume.
  const double u = 1.0 / 16777216.0;
  const double atol = (kNumTaps + 1) * u / (1 - (kNumTaps + 1) * u) * max_abs_terms;
  return compareFloats(d_B.download<float>(points), ref, 0.0, atol,
                       fmt::format("elements of B ({}x{}x{}, {} launches)", ni, nj, nk, ni - 2));
}

}  // namespace

RFSIM_WORKLOAD("r2_3dconv",
               "PolyBench/GPU 3DConvolution: 11-point stencil, one launch per i-plane (R2D2 suite)",
               "workloads/r2_3dconv/r2_3dconv.ptx", {"r2d2", "polybench", "multi-launch"}, run3dConv);

}  // namespace rfsim::workloads
