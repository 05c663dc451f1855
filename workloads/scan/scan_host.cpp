#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr uint32_t kBlock = 256, kPerBlock = 2 * kBlock;

// Exclusive scan of n words at `in` into `out`: one scan_blocks pass, and
// when it took more than one block, a scan of the block totals (recursively)
// and a pass adding them back. Returns the number of launches.
unsigned scan(rt::Device& dev, uint64_t in, uint64_t out, uint32_t n) {
  const uint32_t blocks = ceilDiv(n, kPerBlock);
  const uint32_t smem = (kPerBlock + (kPerBlock >> 5)) * sizeof(uint32_t);  // + bank-conflict padding
  if (blocks == 1) {
    dev.launch("scan_blocks", {1}, {kBlock}, rt::KernelArgs().ptr(in).ptr(out).ptr(0).u32(n), smem);
    return 1;
  }
  DeviceBuffer sums(dev, blocks * sizeof(uint32_t)), offsets(dev, blocks * sizeof(uint32_t));
  dev.launch("scan_blocks", {blocks}, {kBlock}, rt::KernelArgs().ptr(in).ptr(out).ptr(sums.addr()).u32(n), smem);
  unsigned launches = 1 + scan(dev, sums.addr(), offsets.addr(), blocks);
  dev.launch("scan_add_offsets", {blocks}, {kBlock}, rt::KernelArgs().ptr(out).ptr(offsets.addr()).u32(n));
  return launches + 1;
}

Check runScan(rt::Device& dev, Size size) {
  // Small: 59 blocks (the last partial), whose totals are scanned by one more block.
  const uint32_t n = size == Size::Small ? 30000 : 1u << 22;
  Rng rng(8);
  std::vector<uint32_t> x(n);
  for (auto& v : x) v = rng.below(16);

  DeviceBuffer d_in(dev, x), d_out(dev, n * sizeof(uint32_t));
  unsigned launches = scan(dev, d_in.addr(), d_out.addr(), n);

  std::vector<uint32_t> ref(n);
  uint32_t running = 0;
  for (uint32_t i = 0; i < n; ++i) {
    ref[i] = running;
    running += x[i];
  }
  Check c = compareExact(d_out.download<uint32_t>(n), ref, "prefix sums");
  if (c.passed) c.detail = fmt::format("{} in {} launches", c.detail, launches);
  return c;
}

}  // namespace

RFSIM_WORKLOAD("scan", "exclusive prefix sum: Blelloch scan per block, scan of block totals, add-back pass",
               "workloads/scan/scan.ptx", {"shared", "barrier", "multi-launch"}, runScan);

}  // namespace rfsim::workloads
