#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

Check runHistogram(rt::Device& dev, Size size) {
  const uint32_t n = size == Size::Small ? 40000 : 1u << 24;
  // A triangular distribution (the mean of two uniform bytes): the middle
  // bins are hot, so atomics on them contend within a warp.
  Rng rng(7);
  std::vector<uint8_t> data(n);
  for (auto& v : data) v = static_cast<uint8_t>((rng.below(256) + rng.below(256)) / 2);

  DeviceBuffer d_data(dev, data), d_bins(dev, 256 * sizeof(uint32_t));
  d_bins.zero();
  // Fewer threads than bytes: each thread handles several in the grid-stride loop.
  const uint32_t block = 256, grid = size == Size::Small ? 20 : 1024;
  dev.launch("histogram256", {grid}, {block}, rt::KernelArgs().ptr(d_data.addr()).u32(n).ptr(d_bins.addr()));

  std::vector<uint32_t> ref(256, 0);
  for (uint8_t v : data) ++ref[v];
  Check c = compareExact(d_bins.download<uint32_t>(256), ref, "bins");
  if (c.passed) c.detail = fmt::format("{} bytes into {}", n, c.detail);
  return c;
}

}  // namespace

RFSIM_WORKLOAD("histogram", "256-bin byte histogram: shared-memory atomics per block, then global atomics",
               "workloads/histogram/histogram.ptx", {"atomics", "shared", "barrier"}, runHistogram);

}  // namespace rfsim::workloads
