#include <utility>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr int kBlock = 256;  // BLOCK in the kernel

Check runPathfinder(rt::Device& dev, Size size) {
  // Small: 16384 columns x 13 rows, pyramids of 4 rows (3 launches of 69
  // blocks); Large: 262144 columns x 101 rows, pyramids of 20 (Rodinia's
  // run: 100 rows after the first, pyramids of 20).
  const int cols = size == Size::Small ? 16384 : 262144;
  const int rows = size == Size::Small ? 13 : 101;
  const int pyramid = size == Size::Small ? 4 : 20;
  Rng rng(43);
  std::vector<int> wall(size_t(rows) * cols);
  for (auto& w : wall) w = int(rng.below(10));  // Rodinia's weights 0..9

  std::vector<int> first(wall.begin(), wall.begin() + cols);
  DeviceBuffer d_wall(dev, wall), d_a(dev, first), d_b(dev, size_t(cols) * sizeof(int));
  uint64_t src = d_a.addr(), dst = d_b.addr();
  int launches = 0;
  for (int row = 1; row < rows; row += pyramid) {
    const int iters = std::min(pyramid, rows - row);
    dev.launch("lt_pathfinder", {ceilDiv(cols, kBlock - 2 * iters)}, {uint32_t(kBlock)},
               rt::KernelArgs().i32(iters).ptr(d_wall.addr()).ptr(src).ptr(dst).i32(cols).i32(row));
    std::swap(src, dst);
    ++launches;
  }
  std::vector<int> got(cols);
  dev.memcpyDtoH(got.data(), src, cols * sizeof(int));

  std::vector<int> cur(first), next(cols);
  for (int r = 1; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      int m = cur[c];
      if (c > 0) m = std::min(m, cur[c - 1]);
      if (c < cols - 1) m = std::min(m, cur[c + 1]);
      next[c] = wall[size_t(r) * cols + c] + m;
    }
    std::swap(cur, next);
  }
  return compareExact(got, cur,
                      fmt::format("path costs of the last row ({} columns x {} rows, {} launches of pyramids of {})",
                                  cols, rows, launches, pyramid));
}

}  // namespace

RFSIM_WORKLOAD("lt_pathfinder",
               "dynamic programming down the rows of a grid, a pyramid of rows per launch in shared memory (LTRF suite)",
               "workloads/lt_pathfinder/lt_pathfinder.ptx",
               {"ltrf", "reginsens", "shared", "barrier", "multi-launch"}, runPathfinder);

}  // namespace rfsim::workloads
