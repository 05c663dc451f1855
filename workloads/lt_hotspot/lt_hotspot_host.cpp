#include <utility>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr int kCols = 16, kRows = 64;  // the tile: BS x (BS * ROWS) in the kernel

Check runHotspot(rt::Device& dev, Size size) {
  // Small: a 192 x 256 chip, 4 steps in 2 launches of a 2-step pyramid
  // (16 x 5 blocks of 256 threads: 20480 threads); Large: 1024 x 1024, 20
  // steps in 10 launches (a block computes the inner 12 x 60 cells of its
  // 16 x 64 tile).
  const int cols = size == Size::Small ? 192 : 1024;
  const int rows = size == Size::Small ? 256 : 1024;
  const int pyramid = 2;
  const int steps = size == Size::Small ? 4 : 20;
  // Rodinia's chip constants: a 0.016 m x 0.016 m die 0.5 mm thick.
  const double chip_h = 0.016, chip_w = 0.016, t_chip = 0.0005;
  const double k_si = 100.0, spec_heat = 1.75e6, factor = 0.5, max_pd = 3.0e6, precision = 0.001;
  const double amb = 80.0;
  const double grid_h = chip_h / rows, grid_w = chip_w / cols;
  const double cap = factor * spec_heat * t_chip * grid_w * grid_h;
  const double rx = grid_w / (2.0 * k_si * t_chip * grid_h), ry = grid_h / (2.0 * k_si * t_chip * grid_w);
  const double rz = t_chip / (k_si * grid_h * grid_w);
  const double max_slope = max_pd / (factor * t_chip * spec_heat);
  const double step = precision / max_slope;
  const float step_div_cap = float(step / cap), rx_1 = float(1.0 / rx), ry_1 = float(1.0 / ry),
              rz_1 = float(1.0 / rz);
  Rng rng(36);
  // Temperatures around 320-345 K, powers with a few hot blocks.
  std::vector<float> temp(size_t(rows) * cols), power(size_t(rows) * cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      temp[size_t(r) * cols + c] = rng.uniform(320.0f, 345.0f);
      const bool hot = (r / 32 + c / 32) % 5 == 0;
      power[size_t(r) * cols + c] = rng.uniform(0.0f, hot ? 0.8f : 0.1f);
    }

  DeviceBuffer d_power(dev, power), d_a(dev, temp), d_b(dev, temp.size() * sizeof(float));
  uint64_t src = d_a.addr(), dst = d_b.addr();
  for (int done = 0; done < steps; done += pyramid) {
    const int iters = std::min(pyramid, steps - done);
    const rt::Dim3 blocks{ceilDiv(cols, kCols - 2 * iters), ceilDiv(rows, kRows - 2 * iters)};
    dev.launch("lt_hotspot", blocks, {16, 16},
               rt::KernelArgs()
                   .i32(iters)
                   .ptr(d_power.addr())
                   .ptr(src)
                   .ptr(dst)
                   .i32(cols)
                   .i32(rows)
                   .f32(step_div_cap)
                   .f32(rx_1)
                   .f32(ry_1)
                   .f32(rz_1)
                   .f32(float(amb)));
    std::swap(src, dst);
  }
  std::vector<float> got(temp.size());
  dev.memcpyDtoH(got.data(), src, got.size() * sizeof(float));

  // The same steps in double (with the float constants the kernel gets).
  std::vector<double> cur(temp.begin(), temp.end()), next(temp.size());
  for (int s = 0; s < steps; ++s) {
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) {
        const size_t at = size_t(r) * cols + c;
        const double t = cur[at];
        const double n = r > 0 ? cur[at - cols] : t, so = r < rows - 1 ? cur[at + cols] : t;
        const double w = c > 0 ? cur[at - 1] : t, e = c < cols - 1 ? cur[at + 1] : t;
        next[at] = t + double(step_div_cap) * (power[at] + (so + n - 2.0 * t) * double(ry_1) +
                                               (e + w - 2.0 * t) * double(rx_1) + (amb - t) * double(rz_1));
      }
    std::swap(cur, next);
  }
  // Each step adds a small change (well under 1 K) to a temperature near
  // 330 K whose float ulp is 3e-5: the error grows by about an ulp per
  // step, and the change's own rounding is far below it.
  return compareFloats(got, cur, 0.0, 6e-5 * (steps + 1),
                       fmt::format("temperatures ({}x{} cells, {} steps, pyramids of {})", cols, rows, steps, pyramid));
}

}  // namespace

RFSIM_WORKLOAD("lt_hotspot",
               "hotspot thermal stencil: a pyramid of steps in shared memory, 4 cells per thread kept in registers "
               "(LTRF suite)",
               "workloads/lt_hotspot/lt_hotspot.ptx", {"ltrf", "regsens", "shared", "barrier", "multi-launch"},
               runHotspot);

}  // namespace rfsim::workloads
