#include <utility>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr int kColumn = 16;  // ZB in the kernel: the points of a thread's column

Check runLaplace3d(rt::Device& dev, Size size) {
  // Small: 128 x 64 x 24 points, 1 sweep (128 blocks of 32 x 4 columns:
  // 16384 threads; nz need not be a multiple of the column's 16 points, and
  // the second column of each (x, y) has 8); Large: 256 x 256 x 128, 4
  // sweeps ping-ponging between two grids.
  const int nx = size == Size::Small ? 128 : 256;
  const int ny = size == Size::Small ? 64 : 256;
  const int nz = size == Size::Small ? 24 : 128;
  const int sweeps = size == Size::Small ? 1 : 4;
  const size_t points = size_t(nx) * ny * nz;
  Rng rng(32);
  // Boundary values from a smooth function plus noise, the interior random:
  // the sweeps smooth it towards the harmonic solution.
  std::vector<float> grid(points);
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        const bool boundary = i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1;
        const float noise = rng.uniform(-0.5f, 0.5f);
        grid[(size_t(k) * ny + j) * nx + i] =
            boundary ? float(i + 2 * j) / float(nx + 2 * ny) + 0.1f * noise : 0.5f + noise;
      }

  DeviceBuffer d_a(dev, grid), d_b(dev, points * sizeof(float));
  const rt::Dim3 block{32, 4, 1};
  const rt::Dim3 blocks{ceilDiv(nx, block.x), ceilDiv(ny, block.y), ceilDiv(nz, kColumn)};
  uint64_t src = d_a.addr(), dst = d_b.addr();
  for (int s = 0; s < sweeps; ++s) {
    dev.launch("lt_laplace3d", blocks, block, rt::KernelArgs().ptr(src).ptr(dst).i32(nx).i32(ny).i32(nz));
    std::swap(src, dst);
  }
  std::vector<float> got(points);
  dev.memcpyDtoH(got.data(), src, points * sizeof(float));

  std::vector<double> cur(grid.begin(), grid.end()), next(points);
  const size_t sy = nx, sz = size_t(nx) * ny;
  for (int s = 0; s < sweeps; ++s) {
    for (int k = 0; k < nz; ++k)
      for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i) {
          const size_t at = k * sz + j * sy + i;
          const bool boundary = i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1;
          next[at] = boundary ? cur[at]
                              : (cur[at - 1] + cur[at + 1] + cur[at - sy] + cur[at + sy] + cur[at - sz] +
                                 cur[at + sz]) /
                                    6.0;
        }
    std::swap(cur, next);
  }
  // Six additions and a multiplication by the rounded 1/6 per point and
  // sweep on values below 1: a few ulps of 1 per sweep.
  return compareFloats(got, cur, 1e-5, 1e-6 * sweeps,
                       fmt::format("points ({}x{}x{}, {} sweep(s))", nx, ny, nz, sweeps));
}

}  // namespace

RFSIM_WORKLOAD("lt_laplace3d",
               "3-D Laplace (Jacobi) sweeps, register blocking of 16 points along z per thread (LTRF suite)",
               "workloads/lt_laplace3d/lt_laplace3d.ptx", {"ltrf", "regsens", "memory", "multi-launch"},
               runLaplace3d);

}  // namespace rfsim::workloads
