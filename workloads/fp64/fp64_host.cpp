#include <cmath>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr int kMaxDegree = 16;  // POLY_MAX_DEGREE in fp64.cu

// Both kernels spell out every fma and the order of the operations, and
// IEEE-754 rounds each double operation correctly, so the reference below
// (std::fma in the same order) must agree bit for bit: a tolerance would
// only hide an fma executed as a separate multiply and add.
Check runFp64(rt::Device& dev, Size size) {
  Rng rng(23);

  // DGEMV: m not a multiple of the block, n not a multiple of the x tile.
  const int m = size == Size::Small ? 300 : 4096;
  const int n = size == Size::Small ? 200 : 4096;
  const int lda = (m + 31) / 32 * 32;  // padded leading dimension
  const double alpha = 1.25, beta = -0.5;
  std::vector<double> a(size_t(lda) * n), x(n), y(m);
  for (auto& v : a) v = rng.uniform(-1.0f, 1.0f);
  for (auto& v : x) v = rng.uniform(-1.0f, 1.0f);
  for (auto& v : y) v = rng.uniform(-1.0f, 1.0f);
  DeviceBuffer d_a(dev, a), d_x(dev, x), d_y(dev, y);
  const uint32_t block = 128;
  dev.launch("dgemv_n", {ceilDiv(m, block)}, {block},
             rt::KernelArgs().i32(m).i32(n).f64(alpha).ptr(d_a.addr()).i32(lda).ptr(d_x.addr()).f64(beta).ptr(
                 d_y.addr()));

  std::vector<double> ref_y(m);
  for (int i = 0; i < m; ++i) {
    double acc = 0.0;
    for (int j = 0; j < n; ++j) acc = std::fma(a[size_t(j) * lda + i], x[j], acc);
    ref_y[i] = std::fma(alpha, acc, beta * y[i]);
  }
  Check gemv = compareExact(d_y.download<double>(m), ref_y, "elements of alpha*A*x + beta*y (dgemv_n)");
  if (!gemv.passed) return gemv;

  // Horner, coefficients in __constant__ memory; fewer threads than points.
  const int points = size == Size::Small ? 4096 : 1 << 22;
  const int degree = 12;
  std::vector<double> coeffs(kMaxDegree + 1, 0.0), px(points);
  for (int k = 0; k <= degree; ++k) coeffs[k] = rng.uniform(-1.0f, 1.0f) / (k + 1);
  for (auto& v : px) v = rng.uniform(-1.5f, 1.5f);
  dev.memcpyHtoD(dev.symbolAddress("poly_coeffs"), coeffs.data(), coeffs.size() * sizeof(double));
  DeviceBuffer d_px(dev, px), d_py(dev, points * sizeof(double));
  const uint32_t grid = size == Size::Small ? 8 : 1024;
  dev.launch("dpoly_horner", {grid}, {block},
             rt::KernelArgs().ptr(d_px.addr()).ptr(d_py.addr()).i32(points).i32(degree));

  std::vector<double> ref_py(points);
  for (int i = 0; i < points; ++i) {
    double p = coeffs[degree];
    for (int k = degree - 1; k >= 0; --k) p = std::fma(p, px[i], coeffs[k]);
    ref_py[i] = p;
  }
  Check poly = compareExact(d_py.download<double>(points), ref_py, "values of a degree-12 polynomial (dpoly_horner)");
  if (!poly.passed) return poly;
  poly.detail = fmt::format("dgemv {}x{} (lda {}): {}; {}", m, n, lda, gemv.detail, poly.detail);
  return poly;
}

}  // namespace

RFSIM_WORKLOAD("fp64", "double precision: DGEMV with an x tile in shared memory, Horner polynomial from __constant__",
               "workloads/fp64/fp64.ptx", {"fp64", "shared", "barrier", "constant", "multi-launch"}, runFp64);

}  // namespace rfsim::workloads
