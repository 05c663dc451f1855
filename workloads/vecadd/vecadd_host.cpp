#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

Check runVecadd(rt::Device& dev, Size size) {
  // Small: 16 blocks of 256 with a partial last block (4000 is not a multiple of 256).
  const int n = size == Size::Small ? 4000 : 1 << 20;
  Rng rng(1);
  std::vector<float> a(n), b(n);
  for (int i = 0; i < n; ++i) {
    a[i] = rng.uniform(-1.0f, 1.0f);
    b[i] = rng.uniform(-1.0f, 1.0f);
  }

  DeviceBuffer d_a(dev, a), d_b(dev, b), d_c(dev, n * sizeof(float));
  const uint32_t block = 256;
  dev.launch("vecadd", {ceilDiv(n, block)}, {block},
             rt::KernelArgs().ptr(d_a.addr()).ptr(d_b.addr()).ptr(d_c.addr()).i32(n));

  // One correctly rounded float add per element: the result must be exact.
  std::vector<double> ref(n);
  for (int i = 0; i < n; ++i) ref[i] = a[i] + b[i];
  return compareFloats(d_c.download<float>(n), ref, 0.0, 0.0, "elements of a + b");
}

}  // namespace

RFSIM_WORKLOAD("vecadd", "c = a + b, one thread per element", "workloads/vecadd/vecadd.ptx", {"memory"},
               runVecadd);

}  // namespace rfsim::workloads
