#include <cmath>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr uint32_t kMaxBlockSize = 512;  // MAXBLOCKSIZE: r2_fan1's 1-D blocks
constexpr uint32_t kBlockXY = 4;         // BLOCK_SIZE_XY: r2_fan2's 4 x 4 blocks

Check runR2Gaussian(rt::Device& dev, Size size) {
  // Small: a 64 x 64 system: 63 pivots, 126 launches; r2_fan1 1 block of
  // 512, r2_fan2 a fixed grid of 16 x 16 blocks of 4 x 4 (Rodinia does not
  // shrink it as the active part shrinks); Large: 256 x 256, 510 launches,
  // r2_fan2 grids of 64 x 64 blocks.
  const int n = size == Size::Small ? 64 : 256;
  Rng rng(203);
  // Diagonally dominant, so that elimination without pivoting is stable
  // (Rodinia's generated matrices are too: 10 exp(-0.01 |i - j|) with b = 1).
  std::vector<float> a(size_t(n) * n), b(n), m(size_t(n) * n, 0.0f);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) a[size_t(i) * n + j] = rng.uniform(-1.0f, 1.0f);
    a[size_t(i) * n + i] = float(n) + rng.uniform(0.0f, 1.0f);
    b[i] = rng.uniform(-1.0f, 1.0f);
  }

  DeviceBuffer d_m(dev, m), d_a(dev, a), d_b(dev, b);
  const rt::Dim3 grid1{ceilDiv(n, kMaxBlockSize)}, block1{kMaxBlockSize};
  const rt::Dim3 grid2{ceilDiv(n, kBlockXY), ceilDiv(n, kBlockXY)}, block2{kBlockXY, kBlockXY};
  for (int t = 0; t < n - 1; ++t) {
    dev.launch("r2_fan1", grid1, block1, rt::KernelArgs().ptr(d_m.addr()).ptr(d_a.addr()).i32(n).i32(t));
    dev.launch("r2_fan2", grid2, block2,
               rt::KernelArgs().ptr(d_m.addr()).ptr(d_a.addr()).ptr(d_b.addr()).i32(n).i32(n - t).i32(t));
  }
  std::vector<float> got_a = d_a.download<float>(a.size()), got_b = d_b.download<float>(n),
                     got_m = d_m.download<float>(m.size());

  // The same elimination on the host in float, in the device's order: a
  // correctly rounded division per multiplier, r2_fan2's multiply and
  // subtract apart as its PTX has them. The model runs that PTX exactly;
  // on hardware ptxas may contract a mul.f32 and sub.f32 without rounding
  // modifiers into one fma (PTX ISA, mul/sub: "may be optimized to fma"),
  // which rounds once instead of twice. An element then differs by an ulp
  // per step it went through, at most n - 1 steps: the check allows
  // n x 2^-23 relative to the element and to the matrix's largest entry.
  std::vector<float> ra = a, rb = b, rm = m;
  for (int t = 0; t < n - 1; ++t) {
    for (int i = t + 1; i < n; ++i) rm[size_t(i) * n + t] = ra[size_t(i) * n + t] / ra[size_t(t) * n + t];
    for (int i = t + 1; i < n; ++i) {
      const float mul = rm[size_t(i) * n + t];
      for (int j = t; j < n; ++j) ra[size_t(i) * n + j] = ra[size_t(i) * n + j] - mul * ra[size_t(t) * n + j];
      rb[i] = rb[i] - mul * rb[t];
    }
  }
  const double rtol = double(n) * std::ldexp(1.0, -23);
  auto scale = [](const std::vector<float>& v) {
    double s = 0.0;
    for (float x : v) s = std::max(s, double(std::fabs(x)));
    return s;
  };
  auto widen = [](const std::vector<float>& v) { return std::vector<double>(v.begin(), v.end()); };
  Check cm = compareFloats(got_m, widen(rm), rtol, rtol * scale(rm), "multipliers (r2_fan1)");
  if (!cm.passed) return cm;
  Check ca = compareFloats(got_a, widen(ra), rtol, rtol * scale(a), "eliminated matrix elements (r2_fan2)");
  if (!ca.passed) return ca;
  Check cb = compareFloats(got_b, widen(rb), rtol, rtol * scale(b), "right-hand side elements (r2_fan2)");
  if (!cb.passed) return cb;

  // Rodinia's BackSub on the device's triangle, and the residual of the
  // solution in the original system: reported, not checked (the
  // comparisons above are the check).
  std::vector<double> x(n);
  for (int i = n - 1; i >= 0; --i) {
    double s = got_b[i];
    for (int j = i + 1; j < n; ++j) s -= double(got_a[size_t(i) * n + j]) * x[j];
    x[i] = s / got_a[size_t(i) * n + i];
  }
  double residual = 0.0;
  for (int i = 0; i < n; ++i) {
    double s = -double(b[i]);
    for (int j = 0; j < n; ++j) s += double(a[size_t(i) * n + j]) * x[j];
    residual = std::max(residual, std::fabs(s));
  }
  cb.detail = fmt::format(
      "{0}x{0} system, {1} launches (r2_fan1 {2} x 512, r2_fan2 {3}x{3} x 4x4), residual {4:.2g}: "
      "{5}; {6}; {7}",
      n, 2 * (n - 1), grid1.x, grid2.x, residual, cm.detail, ca.detail, cb.detail);
  return cb;
}

}  // namespace

RFSIM_WORKLOAD("r2_gaussian",
               "Rodinia gaussian: forward elimination, Fan1 (1-D) and Fan2 (4x4 blocks) per pivot column "
               "(R2D2 suite)",
               "workloads/r2_gaussian/r2_gaussian.ptx", {"r2d2", "rodinia", "multi-launch"}, runR2Gaussian);

}  // namespace rfsim::workloads
