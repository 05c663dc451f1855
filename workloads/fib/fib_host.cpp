#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

Check runFib(rt::Device& dev, Size size) {
  // fib(n) makes 2*fib(n+1) - 1 calls: Small's largest n = 14 is 1219 calls,
  // Large's n = 20 is 21891. A different n per thread makes lanes of a warp
  // return at different depths.
  const int count = size == Size::Small ? 256 : 8192;
  const uint32_t lo = size == Size::Small ? 6 : 10, hi = size == Size::Small ? 14 : 20;
  Rng rng(31);
  std::vector<uint32_t> n(count);
  for (auto& v : n) v = lo + rng.below(hi - lo + 1);

  DeviceBuffer d_n(dev, n), d_out(dev, count * sizeof(uint32_t));
  const uint32_t block = 128;
  dev.launch("fib_kernel", {ceilDiv(count, block)}, {block},
             rt::KernelArgs().ptr(d_n.addr()).ptr(d_out.addr()).i32(count));

  std::vector<uint32_t> ref(count);
  for (int i = 0; i < count; ++i) {
    uint32_t a = 0, b = 1;
    for (uint32_t k = 0; k < n[i]; ++k) {
      uint32_t t = a + b;
      a = b;
      b = t;
    }
    ref[i] = a;
  }
  Check c = compareExact(d_out.download<uint32_t>(count), ref, fmt::format("values of fib(n), n in [{}, {}]", lo, hi));
  return c;
}

}  // namespace

RFSIM_WORKLOAD("fib", "recursive Fibonacci per thread: real calls, divergent recursion depth",
               "workloads/fib/fib.ptx", {"calls", "recursion", "divergence"}, runFib,
               {"workloads/fib/lib/fib_lib.ptx"});

}  // namespace rfsim::workloads
