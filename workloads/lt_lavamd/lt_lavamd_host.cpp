#include <cmath>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr int kPerBox = 4;  // NPB in the kernel

Check runLavamd(rt::Device& dev, Size size) {
  // Small: 16 x 16 x 10 boxes of 4 particles (10240 threads, 80 blocks of
  // 128); Large: 40 x 40 x 40 boxes (256000 particles).
  const int nbx = size == Size::Small ? 16 : 40;
  const int nby = size == Size::Small ? 16 : 40;
  const int nbz = size == Size::Small ? 10 : 40;
  const int nboxes = nbx * nby * nbz, n = nboxes * kPerBox;
  // Unit boxes; alpha = 0.5 as in lavaMD (a2 = 2 alpha^2): the potential
  // falls to exp(-2) at a box's length.
  const float a2 = 0.5f;
  Rng rng(37);
  std::vector<float> pos(size_t(n) * 4);
  for (int b = 0; b < nboxes; ++b) {
    const int bx = b % nbx, by = (b / nbx) % nby, bz = b / (nbx * nby);
    for (int p = 0; p < kPerBox; ++p) {
      float* q = &pos[(size_t(b) * kPerBox + p) * 4];
      q[0] = float(bx) + rng.uniform(0.0f, 1.0f);
      q[1] = float(by) + rng.uniform(0.0f, 1.0f);
      q[2] = float(bz) + rng.uniform(0.0f, 1.0f);
      q[3] = rng.uniform(0.1f, 1.0f);  // lavaMD's charges are positive
    }
  }
  DeviceBuffer d_pos(dev, pos), d_force(dev, size_t(n) * 4 * sizeof(float));
  const uint32_t block = 128;
  dev.launch("lt_lavamd", {ceilDiv(n, block)}, {block},
             rt::KernelArgs().ptr(d_pos.addr()).ptr(d_force.addr()).i32(nbx).i32(nby).i32(nbz).f32(a2));
  const std::vector<float> got = d_force.download<float>(size_t(n) * 4);

  // In double, with per component the sum of the terms' magnitudes.
  std::vector<double> want(size_t(n) * 4, 0.0), magnitude(size_t(n) * 4, 0.0);
  for (int i = 0; i < n; ++i) {
    const int box = i / kPerBox;
    const int bx = box % nbx, by = (box / nbx) % nby, bz = box / (nbx * nby);
    const float* me = &pos[size_t(i) * 4];
    double* w = &want[size_t(i) * 4];
    double* m = &magnitude[size_t(i) * 4];
    for (int z = std::max(bz - 1, 0); z <= std::min(bz + 1, nbz - 1); ++z)
      for (int y = std::max(by - 1, 0); y <= std::min(by + 1, nby - 1); ++y)
        for (int x = std::max(bx - 1, 0); x <= std::min(bx + 1, nbx - 1); ++x)
          for (int j = 0; j < kPerBox; ++j) {
            const float* o = &pos[(size_t((z * nby + y) * nbx + x) * kPerBox + j) * 4];
            const double d[3] = {double(me[0]) - o[0], double(me[1]) - o[1], double(me[2]) - o[2]};
            const double vij = std::exp(-double(a2) * (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]));
            const double terms[4] = {o[3] * vij, 2.0 * vij * o[3] * d[0], 2.0 * vij * o[3] * d[1],
                                     2.0 * vij * o[3] * d[2]};
            for (int c = 0; c < 4; ++c) w[c] += terms[c], m[c] += std::fabs(terms[c]);
          }
  }
  // Up to 108 terms per particle, each within a few ulps (expf within 2),
  // summed in float: a component within 2e-6 of the sum of its terms'
  // magnitudes.
  Check c;
  double worst = 0.0;
  static const char* kWhat[4] = {"potential", "force x", "force y", "force z"};
  for (size_t k = 0; k < want.size(); ++k) {
    const double err = std::fabs(got[k] - want[k]), tol = 2e-6 * (1.0 + magnitude[k]);
    if (!(err <= tol)) {
      c.detail = fmt::format("particle {} {} is {:.9g}, expected {:.9g} (|error| {:.3g} > 2e-6 * (1 + {:.4g}, the sum "
                             "of the terms' magnitudes))",
                             k / 4, kWhat[k % 4], got[k], want[k], err, magnitude[k]);
      return c;
    }
    worst = std::max(worst, err / tol);
  }
  c.passed = true;
  c.detail = fmt::format("{} particles ({}x{}x{} boxes of {}), potential and force, worst component at {:.0f}% of its "
                         "tolerance (2e-6 * (1 + the sum of its terms' magnitudes))",
                         n, nbx, nby, nbz, kPerBox, 100.0 * worst);
  return c;
}

}  // namespace

RFSIM_WORKLOAD("lt_lavamd",
               "particle interactions in boxes (lavaMD's potential): each thread reads a neighbour box's particles "
               "at once (LTRF suite)",
               "workloads/lt_lavamd/lt_lavamd.ptx", {"ltrf", "regsens", "sfu", "compute"}, runLavamd);

}  // namespace rfsim::workloads
