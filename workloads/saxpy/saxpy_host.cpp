#include <cmath>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

Check runSaxpy(rt::Device& dev, Size size) {
  const int n = size == Size::Small ? 1 << 14 : 1 << 20;
  const float alpha = 2.5f;
  Rng rng(2);
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = rng.uniform(-1.0f, 1.0f);
    y[i] = rng.uniform(-1.0f, 1.0f);
  }

  DeviceBuffer d_x(dev, x), d_y(dev, y);
  // Small: fewer threads than elements, so the grid-stride loop runs several
  // times. Large: one element per thread (4096 blocks of 256), the shape of
  // the speed benchmark (scripts/bench_gpu.sh) and of GPGPU-Sim's saxpy runs.
  const uint32_t block = 256, grid = size == Size::Small ? 16 : uint32_t(n) / block;
  dev.launch("saxpy", {grid}, {block}, rt::KernelArgs().i32(n).f32(alpha).ptr(d_x.addr()).ptr(d_y.addr()));

  // nvcc contracts a * x + y into one fma.rn.f32, so the device result is
  // the single rounding of the exact value, which std::fma gives too.
  std::vector<double> ref(n);
  for (int i = 0; i < n; ++i) ref[i] = std::fma(alpha, x[i], y[i]);
  return compareFloats(d_y.download<float>(n), ref, 1e-6, 1e-7, "elements of a*x + y");
}

}  // namespace

RFSIM_WORKLOAD("saxpy", "y = a*x + y with a grid-stride loop", "workloads/saxpy/saxpy.ptx", {"memory"}, runSaxpy);

}  // namespace rfsim::workloads
