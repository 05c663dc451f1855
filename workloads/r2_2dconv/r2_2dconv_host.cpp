#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

// The kernel's coefficients, row by row (the same float constants).
constexpr float kW[3][3] = {{0.125f, -0.25f, 0.375f}, {-0.5f, 0.625f, -0.75f}, {0.3f, -0.6f, 0.9f}};

Check run2dConv(rt::Device& dev, Size size) {
  // Small: a 512 x 512 image, one launch of 16 x 64 blocks of 32 x 8
  // threads (1024 blocks); Large: 2048 x 2048 (64 x 256 blocks).
  const int ni = size == Size::Small ? 512 : 2048;
  const int nj = size == Size::Small ? 512 : 2048;
  const size_t points = size_t(ni) * nj;
  Rng rng(201);
  std::vector<float> A(points);
  for (auto& v : A) v = rng.uniform(-1.0f, 1.0f);

  DeviceBuffer d_A(dev, A), d_B(dev, points * sizeof(float));
  d_B.zero();  // the border is not written: it stays 0
  const rt::Dim3 block{32, 8, 1};
  dev.launch("r2_2dconv", {ceilDiv(nj, block.x), ceilDiv(ni, block.y)}, block,
             rt::KernelArgs().i32(ni).i32(nj).ptr(d_A.addr()).ptr(d_B.addr()));

  std::vector<double> ref(points, 0.0);
  double max_abs_terms = 0.0;  // the largest sum of |coefficient * input| over the points
  for (int i = 1; i < ni - 1; ++i)
    for (int j = 1; j < nj - 1; ++j) {
      double acc = 0.0, abs_terms = 0.0;
      for (int di = -1; di <= 1; ++di)
        for (int dj = -1; dj <= 1; ++dj) {
          const double t = double(kW[di + 1][dj + 1]) * A[size_t(i + di) * nj + (j + dj)];
          acc += t;
          abs_terms += std::fabs(t);
        }
      ref[size_t(i) * nj + j] = acc;
      max_abs_terms = std::max(max_abs_terms, abs_terms);
    }
  // Nine float products summed in float: each product rounds at most once
  // (none where nvcc fused it into an FMA) and each of the eight additions
  // once, so |error| <= gamma_10 * sum|terms| (Higham's bound, gamma_n = n u /
  // (1 - n u), u = 2^-24), taken at the largest sum over the image.
  const double u = 1.0 / 16777216.0;
  const double atol = 10 * u / (1 - 10 * u) * max_abs_terms;
  return compareFloats(d_B.download<float>(points), ref, 0.0, atol,
                       fmt::format("elements of B ({}x{})", ni, nj));
}

}  // namespace

RFSIM_WORKLOAD("r2_2dconv", "PolyBench/GPU 2DConvolution: 3x3 stencil with fixed coefficients (R2D2 suite)",
               "workloads/r2_2dconv/r2_2dconv.ptx", {"r2d2", "polybench"}, run2dConv);

}  // namespace rfsim::workloads
