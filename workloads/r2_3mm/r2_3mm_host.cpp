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

// out = in1 * in2 (rows x inner, inner x cols) in double, and the largest
// rounding bound of the kernel's float result over out: inner products (one
// rounding at most) added in order.
double product(int rows, int cols, int inner, const std::vector<float>& in1, const std::vector<float>& in2,
               std::vector<double>& out) {
  out.assign(size_t(rows) * cols, 0.0);
  double atol = 0.0;
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) {
      BoundedSum s;
      for (int k = 0; k < inner; ++k) s.add(double(in1[size_t(i) * inner + k]) * in2[size_t(k) * cols + j], 1);
      out[size_t(i) * cols + j] = s.sum;
      atol = std::max(atol, s.bound());
    }
  return atol;
}

Check run3mm(rt::Device& dev, Size size) {
  // Small: E = A*B (128 x 128, inner 64), F = C*D (128 x 128, inner 64),
  // G = E*F (128 x 128, inner 128): three launches of 4 x 16 blocks of
  // 32 x 8 threads (192 blocks); Large: every dimension 384 (12 x 48 blocks
  // per launch; three products of 512 would take the functional model close
  // to a minute).
  const int ni = size == Size::Small ? 128 : 384;  // rows of A, E, G
  const int nj = size == Size::Small ? 128 : 384;  // columns of B, E; rows of C, F
  const int nk = size == Size::Small ? 64 : 384;   // columns of A, rows of B
  const int nl = size == Size::Small ? 128 : 384;  // columns of D, F, G
  const int nm = size == Size::Small ? 64 : 384;   // columns of C, rows of D
  Rng rng(205);
  auto random = [&rng](size_t n) {
    std::vector<float> v(n);
    for (auto& x : v) x = rng.uniform(-1.0f, 1.0f);
    return v;
  };
  const std::vector<float> A = random(size_t(ni) * nk), B = random(size_t(nk) * nj), C = random(size_t(nj) * nm),
                           D = random(size_t(nm) * nl);

  DeviceBuffer d_A(dev, A), d_B(dev, B), d_C(dev, C), d_D(dev, D);
  DeviceBuffer d_E(dev, size_t(ni) * nj * sizeof(float)), d_F(dev, size_t(nj) * nl * sizeof(float)),
      d_G(dev, size_t(ni) * nl * sizeof(float));
  const rt::Dim3 block{32, 8, 1};
  auto mm = [&](int rows, int cols, int inner, const DeviceBuffer& in1, const DeviceBuffer& in2,
                const DeviceBuffer& out) {
    dev.launch("r2_3mm_kernel", {ceilDiv(cols, block.x), ceilDiv(rows, block.y)}, block,
               rt::KernelArgs().i32(rows).i32(cols).i32(inner).ptr(in1.addr()).ptr(in2.addr()).ptr(out.addr()));
  };
  mm(ni, nj, nk, d_A, d_B, d_E);
  mm(nj, nl, nm, d_C, d_D, d_F);
  mm(ni, nl, nj, d_E, d_F, d_G);

  // E and F against the inputs; G against the kernel's own (checked) E and
  // F, so that their rounding does not carry over.
  const std::vector<float> got_E = d_E.download<float>(size_t(ni) * nj), got_F = d_F.download<float>(size_t(nj) * nl);
  std::vector<double> ref;
  double atol = product(ni, nj, nk, A, B, ref);
  const Check e = compareFloats(got_E, ref, 0.0, atol, fmt::format("elements of E ({}x{}x{})", ni, nj, nk));
  if (!e.passed) return e;
  atol = product(nj, nl, nm, C, D, ref);
  const Check f = compareFloats(got_F, ref, 0.0, atol, fmt::format("elements of F ({}x{}x{})", nj, nl, nm));
  if (!f.passed) return f;
  atol = product(ni, nl, nj, got_E, got_F, ref);
  Check g = compareFloats(d_G.download<float>(size_t(ni) * nl), ref, 0.0, atol,
                          fmt::format("elements of G ({}x{}x{})", ni, nl, nj));
  g.detail = e.detail + "; " + f.detail + "; " + g.detail;
  return g;
}

}  // namespace

RFSIM_WORKLOAD("r2_3mm", "PolyBench/GPU 3MM: E = A*B, F = C*D, G = E*F, one kernel launched three times (R2D2 suite)",
               "workloads/r2_3mm/r2_3mm.ptx", {"r2d2", "polybench", "multi-launch"}, run3mm);

}  // namespace rfsim::workloads
