#include <utility>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

Check runStencil3d(rt::Device& dev, Size size) {
  // Small: 12288 points, the grid's x and z not multiples of the block.
  const int nx = size == Size::Small ? 36 : 128;
  const int ny = size == Size::Small ? 24 : 128;
  const int nz = size == Size::Small ? 14 : 128;
  const int steps = 2;  // the second step reads what the first launch wrote
  const float c0 = 0.4f, c1 = 0.1f;  // weights sum to 1: values stay in [0, 1)
  const size_t points = size_t(nx) * ny * nz;
  Rng rng(6);
  std::vector<float> grid(points);
  for (auto& v : grid) v = rng.uniform(0.0f, 1.0f);

  DeviceBuffer d_a(dev, grid), d_b(dev, points * sizeof(float));
  const rt::Dim3 block{16, 8, 2};
  const rt::Dim3 blocks{ceilDiv(nx, block.x), ceilDiv(ny, block.y), ceilDiv(nz, block.z)};
  uint64_t src = d_a.addr(), dst = d_b.addr();
  for (int s = 0; s < steps; ++s) {
    dev.launch("stencil7", blocks, block,
               rt::KernelArgs().ptr(src).ptr(dst).i32(nx).i32(ny).i32(nz).f32(c0).f32(c1));
    std::swap(src, dst);
  }
  std::vector<float> got(points);
  dev.memcpyDtoH(got.data(), src, points * sizeof(float));

  std::vector<double> cur(grid.begin(), grid.end()), next(points);
  const size_t sy = nx, sz = size_t(nx) * ny;
  for (int s = 0; s < steps; ++s) {
    for (int z = 0; z < nz; ++z) {
      for (int y = 0; y < ny; ++y) {
        for (int x = 0; x < nx; ++x) {
          size_t i = z * sz + y * sy + x;
          bool boundary = x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1;
          next[i] = boundary ? cur[i]
                             : c0 * cur[i] + c1 * (cur[i - 1] + cur[i + 1] + cur[i - sy] + cur[i + sy] +
                                                   cur[i - sz] + cur[i + sz]);
        }
      }
    }
    std::swap(cur, next);
  }
  // Eight float operations per point and step on values in [0, 1).
  return compareFloats(got, cur, 1e-5, 1e-6,
                       fmt::format("points ({}x{}x{}, {} steps)", nx, ny, nz, steps));
}

}  // namespace

RFSIM_WORKLOAD("stencil3d", "7-point 3D Jacobi stencil on a 3D grid of 3D blocks, two launches",
               "workloads/stencil3d/stencil3d.ptx", {"memory", "multi-launch"}, runStencil3d);

}  // namespace rfsim::workloads
