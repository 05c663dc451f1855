#include <utility>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr int kBx = 32, kBy = 4;  // BX, BY in the kernel: the block's tile of the (x, y) plane

Check runR2Stencil(rt::Device& dev, Size size) {
  // Small: 256 x 128 x 8 points, 2 steps (grid 8 x 32 = 256 blocks of
  // 32 x 4 threads, each marching over the 6 interior planes); Large:
  // 512 x 512 x 64, 4 steps (16 x 128 = 2048 blocks, 62 planes). The grids ping-pong
  // between two buffers, as in Parboil.
  const int nx = size == Size::Small ? 256 : 512;
  const int ny = size == Size::Small ? 128 : 512;
  const int nz = size == Size::Small ? 8 : 64;
  const int steps = size == Size::Small ? 2 : 4;
  const float c0 = 1.0f / 6.0f, c1 = 1.0f / 6.0f / 6.0f;  // Parboil's coefficients
  const size_t points = size_t(nx) * ny * nz;
  Rng rng(203);
  std::vector<float> grid(points);
  for (auto& v : grid) v = rng.uniform(0.0f, 1.0f);

  // Both buffers start as the input: the kernel writes only interior points.
  DeviceBuffer d_a(dev, grid), d_b(dev, grid);
  const rt::Dim3 block{kBx, kBy, 1};
  const rt::Dim3 blocks{ceilDiv(nx, kBx), ceilDiv(ny, kBy), 1};
  uint64_t src = d_a.addr(), dst = d_b.addr();
  for (int s = 0; s < steps; ++s) {
    dev.launch("r2_stencil", blocks, block,
               rt::KernelArgs().f32(c0).f32(c1).ptr(src).ptr(dst).i32(nx).i32(ny).i32(nz));
    std::swap(src, dst);
  }
  std::vector<float> got(points);
  dev.memcpyDtoH(got.data(), src, points * sizeof(float));

  std::vector<double> cur(grid.begin(), grid.end()), next(cur);
  const size_t sy = nx, sz = size_t(nx) * ny;
  for (int s = 0; s < steps; ++s) {
    for (int k = 1; k < nz - 1; ++k)
      for (int j = 1; j < ny - 1; ++j)
        for (int i = 1; i < nx - 1; ++i) {
          const size_t at = k * sz + j * sy + i;
          next[at] = double(c1) * (cur[at - sz] + cur[at + sz] + cur[at - 1] + cur[at + 1] + cur[at - sy] +
                                   cur[at + sy]) -
                     double(c0) * cur[at];
        }
    std::swap(cur, next);
  }
  // Per point and step, with u = 2^-24 and every value of magnitude at
  // most 1: five additions of neighbours whose partial sums stay below 6
  // (each off by at most 6u: 30u), scaled by c1 = 1/36 (under 1u), then a
  // multiplication and a multiply-subtract of terms below 1/6 and results
  // below 1/3 (u/3 each): about 1.5u. An input error e reaches the output
  // as at most (6 c1 + c0) e = e / 3, so the errors of earlier steps shrink:
  // the total stays below 1.5u / (1 - 1/3) = 2.25u ~ 1.4e-7 for any number
  // of steps. The tolerance is about 3 times that bound.
  return compareFloats(got, cur, 0.0, 4.5e-7,
                       fmt::format("points ({}x{}x{}, {} step(s))", nx, ny, nz, steps));
}

}  // namespace

RFSIM_WORKLOAD("r2_stencil",
               "Parboil stencil (R2D2 suite): 7-point 3-D Jacobi step, 32 x 4 blocks marching along z with a "
               "shared-memory plane",
               "workloads/r2_stencil/r2_stencil.ptx", {"r2d2", "parboil", "shared", "barrier", "multi-launch"},
               runR2Stencil);

}  // namespace rfsim::workloads
