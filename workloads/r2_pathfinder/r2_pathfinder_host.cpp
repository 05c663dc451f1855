#include <algorithm>
#include <utility>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr int kBlock = 256;  // BLOCK_SIZE in the kernel
constexpr int kHalo = 1;

Check runR2Pathfinder(rt::Device& dev, Size size) {
  // Small: 49152 columns x 13 rows in pyramids of 4 rows: 3 launches of 199
  // blocks of 256 (each computes 248 columns; 2.5 blocks per SM); Large:
  // Rodinia's usual 100000 columns x 100 rows in pyramids of 20: 5 launches
  // of 463 blocks.
  const int cols = size == Size::Small ? 49152 : 100000;
  const int rows = size == Size::Small ? 13 : 100;
  const int pyramid = size == Size::Small ? 4 : 20;
  Rng rng(205);
  // Rodinia's weights: rand() % 10.
  std::vector<int> data(size_t(rows) * cols);
  for (auto& w : data) w = static_cast<int>(rng.below(10));

  const int border = pyramid * kHalo;
  const int small_block = kBlock - pyramid * kHalo * 2;
  const uint32_t blocks = ceilDiv(cols, small_block);
  // Row 0 is the first source; the other rows are the wall.
  std::vector<int> first(data.begin(), data.begin() + cols);
  std::vector<int> wall(data.begin() + cols, data.end());
  DeviceBuffer d_wall(dev, wall), d_r0(dev, first), d_r1(dev, size_t(cols) * sizeof(int));
  uint64_t src = d_r1.addr(), dst = d_r0.addr();
  int launches = 0;
  for (int t = 0; t < rows - 1; t += pyramid) {
    std::swap(src, dst);
    dev.launch("r2_dynproc_kernel", {blocks}, {kBlock},
               rt::KernelArgs()
                   .i32(std::min(pyramid, rows - t - 1))
                   .ptr(d_wall.addr())
                   .ptr(src)
                   .ptr(dst)
                   .i32(cols)
                   .i32(rows)
                   .i32(t)
                   .i32(border));
    ++launches;
  }
  std::vector<int> got(cols);
  dev.memcpyDtoH(got.data(), dst, cols * sizeof(int));

  // Integer minima and sums: the reference must match exactly.
  std::vector<int> cur(first), next(cols);
  for (int r = 1; r < rows; ++r) {
    for (int x = 0; x < cols; ++x) {
      int best = cur[x];
      if (x > 0) best = std::min(best, cur[x - 1]);
      if (x < cols - 1) best = std::min(best, cur[x + 1]);
      next[x] = best + data[size_t(r) * cols + x];
    }
    std::swap(cur, next);
  }
  Check c = compareExact(got, cur, "path costs of the last row");
  if (c.passed) {
    c.detail = fmt::format("{} columns x {} rows, {} launches of {} x {} in pyramids of {}; {}", cols, rows, launches,
                           blocks, kBlock, pyramid, c.detail);
  }
  return c;
}

}  // namespace

RFSIM_WORKLOAD("r2_pathfinder",
               "Rodinia pathfinder: dynamic programming row by row, 256-thread blocks with shared memory, "
               "pyramids of rows per launch (R2D2 suite)",
               "workloads/r2_pathfinder/r2_pathfinder.ptx", {"r2d2", "rodinia", "multi-launch"}, runR2Pathfinder);

}  // namespace rfsim::workloads
