#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

Check runShflReduce(rt::Device& dev, Size size) {
  Rng rng(29);

  // reduce_sum_vote: n not a multiple of 32 (a partial last chunk) and more
  // elements than threads (grid-stride loop). Negative values are rare, so
  // __any_sync is true for some 32-element chunks and false for others.
  const int n = size == Size::Small ? 10000 : 1 << 24;
  const uint32_t block = 256, grid = size == Size::Small ? 4 : 160;
  std::vector<int> in(n);
  for (auto& v : in) v = rng.below(64) == 0 ? -1 - int(rng.below(1000)) : int(rng.below(1001));
  DeviceBuffer d_in(dev, in), d_stats(dev, 3 * sizeof(unsigned long long));
  d_stats.zero();
  dev.launch("reduce_sum_vote", {grid}, {block}, rt::KernelArgs().ptr(d_in.addr()).i32(n).ptr(d_stats.addr()));

  long long sum = 0;
  unsigned long long positives = 0, neg_chunks = 0;
  for (int base = 0; base < n; base += 32) {
    bool neg = false;
    for (int i = base; i < std::min(n, base + 32); ++i) {
      sum += in[i];
      positives += in[i] > 0;
      neg |= in[i] < 0;
    }
    neg_chunks += neg;
  }
  std::vector<unsigned long long> ref_stats = {static_cast<unsigned long long>(sum), positives, neg_chunks};
  Check red = compareExact(d_stats.download<unsigned long long>(3), ref_stats,
                           "results (sum, count of positives, 32-element chunks with a negative)");
  if (!red.passed) return red;

  // block_scan: a partial last block; values of both signs.
  const int sn = size == Size::Small ? 2000 : 1 << 22;
  const uint32_t sblock = size == Size::Small ? 256 : 1024;
  std::vector<int> sin(sn);
  for (auto& v : sin) v = int(rng.below(201)) - 100;
  DeviceBuffer d_sin(dev, sin), d_sout(dev, sn * sizeof(int));
  dev.launch("block_scan", {ceilDiv(sn, sblock)}, {sblock},
             rt::KernelArgs().ptr(d_sin.addr()).ptr(d_sout.addr()).i32(sn));
  std::vector<int> ref_scan(sn);
  for (int i = 0; i < sn; ++i) ref_scan[i] = (i % int(sblock) == 0 ? 0 : ref_scan[i - 1]) + sin[i];
  Check scan = compareExact(d_sout.download<int>(sn), ref_scan,
                            fmt::format("prefix sums (block_scan, {} threads per block)", sblock));
  if (!scan.passed) return scan;

  scan.detail = fmt::format("{} ints: sum {}, {} positive, {} chunks with a negative; {}", n, sum, positives,
                            neg_chunks, scan.detail);
  return scan;
}

}  // namespace

RFSIM_WORKLOAD("shfl_reduce",
               "warp shuffles (down, xor, up, idx) and votes (ballot, any): reduction with counts, block scan",
               "workloads/shfl_reduce/shfl_reduce.ptx", {"shuffle", "vote", "atomics", "shared", "barrier", "multi-launch"},
               runShflReduce);

}  // namespace rfsim::workloads
