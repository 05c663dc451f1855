#include <cmath>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr int kBin = 4;          // grid units per bin side (BIN in the kernel)
constexpr double kHalf = 2.0;    // the window's half-width (HALF)

// The kernel's window in double: I0's power series to t^8, less 1.
double window(double d, double c) {
  const double t = c * (1.0 - d * d / (kHalf * kHalf));
  double s = 0.0, term = 1.0;
  for (int k = 1; k <= 8; ++k) {
    term *= t / (double(k) * k);
    s += term;
  }
  return s;
}

Check runMrigrid(rt::Device& dev, Size size) {
  // Small: a 64 x 64 x 32 grid (16 x 16 x 8 bins), 0.5 samples per bin
  // (1024 samples), 16384 threads of 8 points; Large: 128^3 (32^3 bins),
  // 8 samples per bin (262144 samples). beta = 4.
  const int nbx = size == Size::Small ? 16 : 32;
  const int nby = size == Size::Small ? 16 : 32;
  const int nbz = size == Size::Small ? 8 : 32;
  const int nbins = nbx * nby * nbz;
  const int nsamples = size == Size::Small ? nbins / 2 : 8 * nbins;
  const double beta = 4.0;
  const float c = float(beta * beta / 4.0);
  const int nx = nbx * kBin, ny = nby * kBin, nz = nbz * kBin;
  Rng rng(35);
  // Random samples, denser towards the centre of k-space (as on a radial or
  // spiral trajectory): up to 2.5 times the mean density there.
  struct Sample {
    float x, y, z, re, im;
    int bin;
  };
  std::vector<Sample> samples(nsamples);
  for (Sample& s : samples) {
    float p[3];
    const int n[3] = {nx, ny, nz};
    for (int a = 0; a < 3; ++a) {
      const float u = rng.uniform(-1.0f, 1.0f), v = rng.uniform(0.0f, 1.0f);
      p[a] = (0.5f + 0.5f * u * (0.6f + 0.4f * v)) * float(n[a]);
      p[a] = std::min(std::max(p[a], 0.0f), float(n[a]) - 0.001f);
    }
    s.x = p[0], s.y = p[1], s.z = p[2];
    s.re = rng.uniform(-1.0f, 1.0f), s.im = rng.uniform(-1.0f, 1.0f);
    s.bin = (int(s.z) / kBin * nby + int(s.y) / kBin) * nbx + int(s.x) / kBin;
  }
  std::stable_sort(samples.begin(), samples.end(), [](const Sample& a, const Sample& b) { return a.bin < b.bin; });
  std::vector<int> bin_start(nbins + 1, 0);
  for (const Sample& s : samples) ++bin_start[s.bin + 1];
  for (int b = 0; b < nbins; ++b) bin_start[b + 1] += bin_start[b];
  std::vector<float> pos, val;
  for (const Sample& s : samples) {
    pos.insert(pos.end(), {s.x, s.y, s.z, 0.0f});
    val.insert(val.end(), {s.re, s.im});
  }

  const size_t points = size_t(nx) * ny * nz;
  DeviceBuffer d_pos(dev, pos), d_val(dev, val), d_bins(dev, bin_start), d_grid(dev, points * 2 * sizeof(float));
  // A thread per row of 8 points (two bins); blocks of 2 rows in x x 4 y x 16 z.
  const rt::Dim3 block{2, 4, 16};
  dev.launch("lt_mrigrid", {ceilDiv(nbx / 2, block.x), ceilDiv(ny, block.y), ceilDiv(nz, block.z)}, block,
             rt::KernelArgs()
                 .ptr(d_pos.addr())
                 .ptr(d_val.addr())
                 .ptr(d_bins.addr())
                 .ptr(d_grid.addr())
                 .i32(nbx)
                 .i32(nby)
                 .i32(nbz)
                 .f32(c));
  const std::vector<float> got = d_grid.download<float>(2 * points);

  // Every sample onto the grid points of its window, in double; per value
  // also the sum of the terms' magnitudes.
  std::vector<double> want(2 * points, 0.0), magnitude(2 * points, 0.0);
  for (const Sample& s : samples) {
    const int i0 = std::max(0, int(std::floor(s.x - kHalf))), i1 = std::min(nx - 1, int(std::ceil(s.x + kHalf)));
    const int j0 = std::max(0, int(std::floor(s.y - kHalf))), j1 = std::min(ny - 1, int(std::ceil(s.y + kHalf)));
    const int k0 = std::max(0, int(std::floor(s.z - kHalf))), k1 = std::min(nz - 1, int(std::ceil(s.z + kHalf)));
    for (int k = k0; k <= k1; ++k)
      for (int j = j0; j <= j1; ++j)
        for (int i = i0; i <= i1; ++i) {
          const double dx = i - double(s.x), dy = j - double(s.y), dz = k - double(s.z);
          if (std::fabs(dx) >= kHalf || std::fabs(dy) >= kHalf || std::fabs(dz) >= kHalf) continue;
          const double w = window(dx, c) * window(dy, c) * window(dz, c);
          const size_t at = 2 * ((size_t(k) * ny + j) * nx + i);
          want[at] += w * s.re, want[at + 1] += w * s.im;
          magnitude[at] += std::fabs(w * s.re), magnitude[at + 1] += std::fabs(w * s.im);
        }
  }
  // Each term is the product of three windows (a degree-8 polynomial each,
  // in float within a few ulps, the distances exact: dx = gx - x needs no
  // more bits than x has) and a value: within about 1e-6 of its
  // magnitude. A sample within rounding of a window's edge may count in one
  // and not in the other, but the window is 0 there.
  Check chk;
  double worst = 0.0;
  for (size_t p = 0; p < 2 * points; ++p) {
    const double err = std::fabs(got[p] - want[p]), tol = 1e-6 + 2e-6 * magnitude[p];
    if (!(err <= tol)) {
      chk.detail = fmt::format("grid value {} (point {}, {}) is {:.9g}, expected {:.9g} (|error| {:.3g} > 1e-6 + 2e-6 * "
                               "{:.4g}, the sum of the terms' magnitudes)",
                               p, p / 2, p % 2 ? "imaginary" : "real", got[p], want[p], err, magnitude[p]);
      return chk;
    }
    worst = std::max(worst, err / tol);
  }
  chk.passed = true;
  chk.detail = fmt::format("{} grid points ({}x{}x{}, {} samples in {} bins), real and imaginary parts, worst at {:.0f}% "
                           "of its tolerance (1e-6 + 2e-6 * the sum of its terms' magnitudes)",
                           points, nx, ny, nz, nsamples, nbins, 100.0 * worst);
  return chk;
}

}  // namespace

RFSIM_WORKLOAD("lt_mrigrid",
               "MRI gridding: binned k-space samples onto a grid through a Kaiser-Bessel-like window, 8 complex "
               "points per thread (LTRF suite)",
               "workloads/lt_mrigrid/lt_mrigrid.ptx", {"ltrf", "regsens", "compute"}, runMrigrid);

}  // namespace rfsim::workloads
