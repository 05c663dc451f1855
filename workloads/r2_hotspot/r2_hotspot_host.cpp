#include <algorithm>
#include <cmath>
#include <utility>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr int kBlock = 16;  // BLOCK_SIZE in the kernel

// Rodinia hotspot's chip: 0.5 mm thick, 16 mm x 16 mm, silicon.
constexpr double kChipThickness = 0.0005, kChipHeight = 0.016, kChipWidth = 0.016;
constexpr double kFactorChip = 0.5, kSpecHeatSi = 1.75e6, kKSi = 100, kPrecision = 0.001, kMaxPd = 3.0e6;
constexpr double kAmbient = 80.0;

Check runR2Hotspot(rt::Device& dev, Size size) {
  // Small: a 208 x 208 grid, 4 steps in pyramids of 2: 2 launches of 18 x 18
  // blocks of 16x16 (each computes a 12 x 12 centre; 4 blocks per SM);
  // Large: 1024 x 1024, 8 steps in pyramids of 2: 4 launches of 86 x 86.
  const int rows = size == Size::Small ? 208 : 1024;
  const int cols = rows;
  const int pyramid = 2;
  const int total_steps = size == Size::Small ? 4 : 8;
  const size_t cells = size_t(rows) * cols;
  Rng rng(204);
  std::vector<float> temp(cells), power(cells);
  for (auto& t : temp) t = rng.uniform(323.0f, 343.0f);
  for (auto& p : power) p = rng.uniform(0.0f, 0.5f);

  // compute_tran_temp's constants, rounded to float as Rodinia does.
  const float grid_height = float(kChipHeight / rows), grid_width = float(kChipWidth / cols);
  const float cap = float(kFactorChip * kSpecHeatSi * kChipThickness * grid_width * grid_height);
  const float rx = float(grid_width / (2.0 * kKSi * kChipThickness * grid_height));
  const float ry = float(grid_height / (2.0 * kKSi * kChipThickness * grid_width));
  const float rz = float(kChipThickness / (kKSi * grid_height * grid_width));
  const float max_slope = float(kMaxPd / (kFactorChip * kChipThickness * kSpecHeatSi));
  const float step = float(kPrecision / max_slope);
  const float time_elapsed = 0.001f;

  const int border = pyramid;  // pyramid_height * EXPAND_RATE / 2
  const int small_block = kBlock - 2 * pyramid;
  const rt::Dim3 grid{ceilDiv(cols, small_block), ceilDiv(rows, small_block)}, block{kBlock, kBlock};
  DeviceBuffer d_power(dev, power), d_a(dev, temp), d_b(dev, cells * sizeof(float));
  uint64_t src = d_b.addr(), dst = d_a.addr();
  int launches = 0;
  for (int t = 0; t < total_steps; t += pyramid) {
    std::swap(src, dst);
    dev.launch("r2_calculate_temp", grid, block,
               rt::KernelArgs()
                   .i32(std::min(pyramid, total_steps - t))
                   .ptr(d_power.addr())
                   .ptr(src)
                   .ptr(dst)
                   .i32(cols)
                   .i32(rows)
                   .i32(border)
                   .i32(border)
                   .f32(cap)
                   .f32(rx)
                   .f32(ry)
                   .f32(rz)
                   .f32(step)
                   .f32(time_elapsed));
    ++launches;
  }
  std::vector<float> got(cells);
  dev.memcpyDtoH(got.data(), dst, cells * sizeof(float));

  // The same explicit steps in double; a neighbour outside the chip is the
  // cell itself (the kernel's clamped N/S/E/W).
  const double sdc = double(step) / cap, rx1 = 1.0 / rx, ry1 = 1.0 / ry, rz1 = 1.0 / rz;
  std::vector<double> cur(temp.begin(), temp.end()), next(cells);
  for (int s = 0; s < total_steps; ++s) {
    for (int y = 0; y < rows; ++y)
      for (int x = 0; x < cols; ++x) {
        auto at = [&](int yy, int xx) {
          return cur[size_t(std::clamp(yy, 0, rows - 1)) * cols + std::clamp(xx, 0, cols - 1)];
        };
        const double c = at(y, x);
        next[size_t(y) * cols + x] =
            c + sdc * (power[size_t(y) * cols + x] + (at(y + 1, x) + at(y - 1, x) - 2.0 * c) * ry1 +
                       (at(y, x + 1) + at(y, x - 1) - 2.0 * c) * rx1 + (kAmbient - c) * rz1);
      }
    std::swap(cur, next);
  }
  // Each step rounds the new temperature (323..344 K, float ulp 2^-15) once,
  // half an ulp. The change it adds (a few K at most) and the neighbour sums
  // (below 700, half an ulp 2^-15, weighted by step/Cap/R <= 0.14) carry
  // errors several times smaller. A step is a convex combination of the old
  // temperatures (self weight 1 - 4 step/(Cap R): 0.98 on 208 x 208 cells,
  // 0.45 on 1024 x 1024), so earlier errors do not grow: after k steps the
  // error stays below k * 2^-15.
  const double atol = total_steps * std::ldexp(1.0, -15);
  Check c = compareFloats(got, cur, 0.0, atol,
                          fmt::format("temperatures ({}x{} cells, {} steps in {} launches of {}x{} blocks)", rows, cols,
                                      total_steps, launches, grid.x, grid.y));
  return c;
}

}  // namespace

RFSIM_WORKLOAD("r2_hotspot",
               "Rodinia hotspot: 16x16 blocks with shared-memory tiles, pyramids of 2 steps per launch "
               "(R2D2 suite)",
               "workloads/r2_hotspot/r2_hotspot.ptx", {"r2d2", "rodinia", "multi-launch"}, runR2Hotspot);

}  // namespace rfsim::workloads
