#include <cmath>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

Check runFdtd2d(rt::Device& dev, Size size) {
  // Small: a 256 x 256 grid, 3 time steps of three launches of 8 x 32
  // blocks of 32 x 8 threads (9 launches, 2304 blocks); Large: 2048 x 2048,
  // 8 time steps (64 x 256 blocks per launch).
  const int nx = 256 * (size == Size::Small ? 1 : 8);
  const int ny = nx;
  const int tmax = size == Size::Small ? 3 : 8;
  const size_t points = size_t(nx) * ny;
  Rng rng(210);
  std::vector<float> fict(tmax), ex(points), ey(points), hz(points);
  for (auto& v : fict) v = rng.uniform(-1.0f, 1.0f);
  for (auto& v : ex) v = rng.uniform(-1.0f, 1.0f);
  for (auto& v : ey) v = rng.uniform(-1.0f, 1.0f);
  for (auto& v : hz) v = rng.uniform(-1.0f, 1.0f);

  DeviceBuffer d_fict(dev, fict), d_ex(dev, ex), d_ey(dev, ey), d_hz(dev, hz);
  const rt::Dim3 block{32, 8, 1};
  const rt::Dim3 grid{ceilDiv(ny, block.x), ceilDiv(nx, block.y), 1};
  for (int t = 0; t < tmax; ++t) {
    dev.launch("r2_fdtd2d_step1", grid, block,
               rt::KernelArgs().i32(nx).i32(ny).ptr(d_fict.addr()).ptr(d_ex.addr()).ptr(d_ey.addr()).ptr(
                   d_hz.addr()).i32(t));
    dev.launch("r2_fdtd2d_step2", grid, block,
               rt::KernelArgs().i32(nx).i32(ny).ptr(d_ex.addr()).ptr(d_ey.addr()).ptr(d_hz.addr()));
    dev.launch("r2_fdtd2d_step3", grid, block,
               rt::KernelArgs().i32(nx).i32(ny).ptr(d_ex.addr()).ptr(d_ey.addr()).ptr(d_hz.addr()));
  }

  // The reference repeats the kernels' float operations in their order, as
  // nvcc compiled them (the PTX): a difference, then one fused multiply-add
  // with the constant -0.5f or -0.7f. So the results must match exactly.
  for (int t = 0; t < tmax; ++t) {
    for (int j = 0; j < ny; ++j) ey[j] = fict[t];
    for (int i = 1; i < nx; ++i)
      for (int j = 0; j < ny; ++j) {
        const size_t at = size_t(i) * ny + j;
        ey[at] = std::fma(hz[at] - hz[at - ny], -0.5f, ey[at]);
      }
    for (int i = 0; i < nx; ++i)
      for (int j = 1; j < ny; ++j) {
        const size_t at = size_t(i) * ny + j;
        ex[at] = std::fma(hz[at] - hz[at - 1], -0.5f, ex[at]);
      }
    for (int i = 0; i < nx - 1; ++i)
      for (int j = 0; j < ny - 1; ++j) {
        const size_t at = size_t(i) * ny + j;
        const float s = ex[at + 1] - ex[at] + ey[at + ny] - ey[at];
        hz[at] = std::fma(s, -0.7f, hz[at]);
      }
  }
  // ex, ey and hz in one vector.
  std::vector<float> got = d_ex.download<float>(points), ref = ex;
  for (const auto* v : {&ey, &hz}) ref.insert(ref.end(), v->begin(), v->end());
  for (const DeviceBuffer* b : {&d_ey, &d_hz}) {
    const std::vector<float> part = b->download<float>(points);
    got.insert(got.end(), part.begin(), part.end());
  }
  return compareExact(got, ref, fmt::format("elements of ex, ey, hz ({}x{}, {} steps)", nx, ny, tmax));
}

}  // namespace

RFSIM_WORKLOAD("r2_fdtd2d", "PolyBench/GPU FDTD-2D: three kernels per time step (R2D2 suite)",
               "workloads/r2_fdtd2d/r2_fdtd2d.ptx", {"r2d2", "polybench", "multi-launch"}, runFdtd2d);

}  // namespace rfsim::workloads
