#include <utility>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

Check runReduction(rt::Device& dev, Size size) {
  const uint32_t n = size == Size::Small ? 50000 : 1u << 22;
  const uint32_t block = 256, per_block = 2 * block;
  Rng rng(3);
  std::vector<float> x(n);
  for (auto& v : x) v = rng.uniform(0.0f, 1.0f);

  // Passes ping-pong between two buffers: a pass reading and writing the
  // same one would race between blocks.
  const uint32_t first_blocks = ceilDiv(n, per_block);
  DeviceBuffer d_in(dev, x), d_a(dev, first_blocks * sizeof(float)), d_b(dev, first_blocks * sizeof(float));
  auto pass = [&](uint64_t in, uint64_t out, uint32_t count) {
    uint32_t blocks = ceilDiv(count, per_block);
    dev.launch("reduce_sum", {blocks}, {block}, rt::KernelArgs().ptr(in).ptr(out).u32(count),
               block * sizeof(float));
    return blocks;
  };

  uint32_t count = pass(d_in.addr(), d_a.addr(), n);
  std::vector<float> partials = d_a.download<float>(count);
  uint64_t src = d_a.addr(), dst = d_b.addr();
  unsigned passes = 1;
  while (count > 1) {
    count = pass(src, dst, count);
    std::swap(src, dst);
    ++passes;
  }
  float total = 0.0f;
  dev.memcpyDtoH(&total, src, sizeof total);

  // The first pass's block sums, then the total. A tree of float adds over
  // 2^k terms in [0, 1) errs by at most about k ulps of the sum, so 1e-5
  // relative is generous and still catches a lost or doubled element.
  std::vector<double> ref_partials(first_blocks, 0.0);
  double ref_total = 0.0;
  for (uint32_t i = 0; i < n; ++i) {
    ref_partials[i / per_block] += x[i];
    ref_total += x[i];
  }
  Check c = compareFloats(partials, ref_partials, 1e-5, 1e-6, "block sums of the first pass");
  if (!c.passed) return c;
  Check t = compareFloats({total}, {ref_total}, 1e-5, 0.0, "total");
  t.detail = fmt::format("{} elements in {} passes: total {:.9g} vs {:.9g}; {}", n, passes, total, ref_total,
                         t.passed ? c.detail : t.detail);
  return t;
}

}  // namespace

RFSIM_WORKLOAD("reduction", "tree sum in shared memory with __syncthreads, repeated over the block sums",
               "workloads/reduction/reduction.ptx", {"shared", "barrier"}, runReduction);

}  // namespace rfsim::workloads
