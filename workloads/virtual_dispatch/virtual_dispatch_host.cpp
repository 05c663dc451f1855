#include <cmath>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr size_t kSlotBytes = 32;  // sizeof(ShapeSlot) in virtual_dispatch.cu

Check runVirtualDispatch(rt::Device& dev, Size size) {
  const int n = size == Size::Small ? 1024 : 1 << 18;
  Rng rng(37);
  // Kinds are random per element, so every warp calls all three classes'
  // methods through the same call instruction (divergent indirect calls).
  std::vector<int> kind(n);
  std::vector<float> params(2 * size_t(n)), factor(n);
  for (int i = 0; i < n; ++i) {
    kind[i] = int(rng.below(3));
    params[2 * i] = rng.uniform(0.5f, 2.0f);
    params[2 * i + 1] = rng.uniform(0.5f, 2.0f);
    factor[i] = rng.uniform(0.5f, 2.0f);
  }

  DeviceBuffer d_kind(dev, kind), d_params(dev, params), d_factor(dev, factor);
  DeviceBuffer d_storage(dev, n * kSlotBytes), d_shapes(dev, n * sizeof(uint64_t)),
      d_out(dev, 2 * size_t(n) * sizeof(float));
  const uint32_t block = 128, grid = ceilDiv(n, block);
  dev.launch("construct_shapes", {grid}, {block},
             rt::KernelArgs().ptr(d_kind.addr()).ptr(d_params.addr()).ptr(d_storage.addr()).ptr(d_shapes.addr()).i32(n));
  dev.launch("eval_shapes", {grid}, {block},
             rt::KernelArgs().ptr(d_shapes.addr()).ptr(d_factor.addr()).ptr(d_out.addr()).i32(n));

  // Same float formulas as the device methods. nvcc may contract a*a + b*b
  // in the triangle's hypotenuse into an fma, a difference of one rounding
  // before the (correctly rounded) sqrt; every other result is a product or
  // sum evaluated in the same order. A few float ulps: 1e-6 relative.
  std::vector<double> ref(2 * size_t(n));
  int counts[3] = {0, 0, 0};
  for (int i = 0; i < n; ++i) {
    float p = params[2 * i], q = params[2 * i + 1], s = factor[i];
    float area, perimeter;
    ++counts[kind[i]];
    switch (kind[i]) {
      case 0: {
        float r = p * s;
        area = 3.14159265f * r * r;
        perimeter = 2.0f * 3.14159265f * r;
        break;
      }
      case 1: {
        float w = p * s, h = q * s;
        area = w * h;
        perimeter = 2.0f * (w + h);
        break;
      }
      default: {
        float a = p * s, b = q * s;
        area = 0.5f * a * b;
        perimeter = a + b + std::sqrt(a * a + b * b);
        break;
      }
    }
    ref[2 * i] = area;
    ref[2 * i + 1] = perimeter;
  }
  Check c = compareFloats(d_out.download<float>(2 * size_t(n)), ref, 1e-6, 1e-6,
                          "areas and perimeters after scale(), all through virtual calls");
  c.detail = fmt::format("{} shapes ({} circles, {} rectangles, {} triangles): {}", n, counts[0], counts[1], counts[2],
                         c.detail);
  return c;
}

}  // namespace

RFSIM_WORKLOAD("virtual_dispatch",
               "device-side objects built with placement new; virtual calls through base pointers (indirect calls)",
               "workloads/virtual_dispatch/virtual_dispatch.ptx", {"calls", "indirect-calls", "divergence", "multi-launch"},
               runVirtualDispatch,
               {"workloads/virtual_dispatch/lib/virtual_dispatch_lib.ptx"});

}  // namespace rfsim::workloads
