#include <cmath>
#include <complex>
#include <utility>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr double kPi = 3.14159265358979323846;

// In-place iterative radix-2 FFT in double (bit reversal, then butterflies),
// the forward transform exp(-2 pi i j k / n), n a power of two.
void fftDouble(std::complex<double>* v, int n) {
  for (int i = 1, j = 0; i < n; ++i) {
    int bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(v[i], v[j]);
  }
  for (int len = 2; len <= n; len <<= 1)
    for (int i = 0; i < n; i += len)
      for (int k = 0; k < len / 2; ++k) {
        const double angle = -2.0 * kPi * k / len;
        const std::complex<double> w(std::cos(angle), std::sin(angle));
        const std::complex<double> a = v[i + k], b = v[i + k + len / 2] * w;
        v[i + k] = a + b;
        v[i + k + len / 2] = a - b;
      }
}

Check runR2Fft(rt::Device& dev, Size size) {
  // Small: 96 transforms of 1024 points, 10 passes, each a grid of
  // 2 x 96 = 192 blocks of 256 threads (512 butterflies a transform);
  // Large: 512 transforms of 4096 points, 12 passes of 8 x 512 = 4096 blocks.
  const int log2n = size == Size::Small ? 10 : 12;
  const int n = 1 << log2n;
  const int batch = size == Size::Small ? 96 : 512;
  const size_t elems = size_t(n) * batch;
  Rng rng(206);
  std::vector<float> data(2 * elems);  // interleaved real, imaginary
  for (auto& v : data) v = rng.uniform(-1.0f, 1.0f);
  std::vector<float> tw(n);  // exp(-2 pi i k / n), k < n/2, interleaved
  for (int k = 0; k < n / 2; ++k) {
    tw[2 * k] = float(std::cos(-2.0 * kPi * k / n));
    tw[2 * k + 1] = float(std::sin(-2.0 * kPi * k / n));
  }

  DeviceBuffer d_a(dev, data), d_b(dev, data.size() * sizeof(float)), d_tw(dev, tw);
  const uint32_t block = 256;
  const rt::Dim3 grid{ceilDiv(n / 2, block), uint32_t(batch), 1};
  uint64_t src = d_a.addr(), dst = d_b.addr();
  for (int ns = 1; ns < n; ns <<= 1) {
    dev.launch("r2_fft_radix2", grid, {block},
               rt::KernelArgs().ptr(src).ptr(dst).ptr(d_tw.addr()).i32(n).i32(ns).i32(n / (2 * ns)));
    std::swap(src, dst);
  }
  std::vector<float> got(2 * elems);
  dev.memcpyDtoH(got.data(), src, got.size() * sizeof(float));

  std::vector<double> ref(2 * elems);
  std::vector<std::complex<double>> v(n);
  std::vector<double> norms(batch);  // each transform's ||y||_2
  double max_norm = 0.0;              // the largest of them
  for (int t = 0; t < batch; ++t) {
    const float* x = data.data() + 2 * size_t(t) * n;
    for (int i = 0; i < n; ++i) v[i] = {x[2 * i], x[2 * i + 1]};
    fftDouble(v.data(), n);
    double norm2 = 0.0;
    for (int i = 0; i < n; ++i) {
      ref[2 * (size_t(t) * n + i)] = v[i].real();
      ref[2 * (size_t(t) * n + i) + 1] = v[i].imag();
      norm2 += std::norm(v[i]);
    }
    norms[t] = std::sqrt(norm2);
    max_norm = std::max(max_norm, norms[t]);
  }
  // Higham, Accuracy and Stability of Numerical Algorithms, Thm. 24.2: a
  // radix-2 FFT of log2(n) butterfly passes in floating point is within
  //   ||y - y_computed||_2 <= log2(n) eta / (1 - log2(n) eta) ||y||_2,
  //   eta = mu + gamma_4 (sqrt(2) + mu), gamma_4 = 4u / (1 - 4u),
  // of the exact y, with mu bounding the twiddles' errors (here rounded from
  // double: mu <= u = 2^-24). Stockham's passes compute the same butterflies
  // and only permute exactly. One pass adds one level of rounding, so the
  // bound grows with log2(n): ~67u ~ 4e-6 of ||y||_2 for n = 1024. Every
  // element's error is at most the transform's 2-norm error; the tolerance
  // takes the largest ||y||_2 of the batch (|y_i| is ~ sqrt(n) 0.8 typically
  // and ||y||_2 ~ n 0.8, so this is ~ 1e-4 relative to a typical element).
  const double u = std::ldexp(1.0, -24);
  const double gamma4 = 4 * u / (1 - 4 * u);
  const double eta = u + gamma4 * (std::sqrt(2.0) + u);
  const double rel = log2n * eta / (1 - log2n * eta);
  Check c = compareFloats(got, ref, 0.0, rel * max_norm,
                          fmt::format("components of {} transforms of {} points", batch, n));
  if (!c.passed) return c;
  // The theorem's own, tighter, statement: each transform's 2-norm error.
  double worst = 0.0;  // the largest ||y - y_computed||_2 / ||y||_2 of the batch
  for (int t = 0; t < batch; ++t) {
    double err2 = 0.0;
    for (size_t i = 2 * size_t(t) * n; i < 2 * size_t(t + 1) * n; ++i) err2 += (got[i] - ref[i]) * (got[i] - ref[i]);
    const double ratio = std::sqrt(err2) / norms[t];
    if (!(ratio <= rel)) {
      c.passed = false;
      c.detail = fmt::format("transform {}: 2-norm error {:.3g} of ||y||_2, above the bound {:.3g}", t, ratio, rel);
      return c;
    }
    worst = std::max(worst, ratio);
  }
  c.detail += fmt::format("; 2-norm error per transform at most {:.2g} of ||y||_2 (bound {:.2g})", worst, rel);
  return c;
}

}  // namespace

RFSIM_WORKLOAD("r2_fft",
               "Batched radix-2 Stockham FFT (R2D2 suite): log2(n) launches of one butterfly kernel, a transform "
               "per grid row",
               "workloads/r2_fft/r2_fft.ptx", {"r2d2", "fft", "memory", "multi-launch"}, runR2Fft);

}  // namespace rfsim::workloads
