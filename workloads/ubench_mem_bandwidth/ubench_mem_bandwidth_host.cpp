// Streaming read bandwidth (see ubench_mem_bandwidth.cu): one launch that
// fills every SM reads a large float array once and writes a sum per thread.
// The check compares every sum exactly (the host adds in the kernel's order,
// in float); the bytes the launch moved (read + written) are measured
// (stats.json: workloads.ubench_mem_bandwidth.measured.bytes_moved), so that
// a caller can divide them by the launch's cycles.
#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

Check runMemBandwidth(rt::Device& dev, Size size) {
  const int n = size == Size::Small ? (8 << 20) / 4 : (64 << 20) / 4;  // 8 MiB or 64 MiB of floats
  // 4 blocks of 256 threads per SM of an 80-SM V100: 32 warps per SM, each
  // with 4 lines in flight per loop pass.
  const uint32_t block = 256, grid = 4 * 80, threads = block * grid;
  Rng rng(67);
  std::vector<float> in(n);
  for (auto& x : in) x = rng.uniform(0.0f, 1.0f);

  DeviceBuffer d_in(dev, in), d_out(dev, size_t{threads} * 4);
  dev.launch("stream_sum", {grid}, {block}, rt::KernelArgs().ptr(d_in.addr()).ptr(d_out.addr()).i32(n));

  std::vector<double> ref(threads);
  for (uint32_t t = 0; t < threads; ++t) {
    float s = 0.0f;
    for (uint64_t i = t; i < static_cast<uint64_t>(n); i += threads) s += in[i];
    ref[t] = s;
  }
  Check c = compareFloats(d_out.download<float>(threads), ref, 0.0, 0.0, "per-thread sums");
  if (!c.passed) return c;
  const uint64_t read = uint64_t{4} * n, written = uint64_t{4} * threads;
  c.detail = fmt::format("bytes {} (read {}, written {}); {} blocks x {} threads, grid-stride; {}", read + written,
                         read, written, grid, block, c.detail);
  c.measured = {{"bytes_moved", "byte", "bytes the launch read and wrote (its input array and one sum per thread)",
                 static_cast<double>(read + written)}};
  return c;
}

}  // namespace

RFSIM_WORKLOAD("ubench_mem_bandwidth",
               "microbenchmark: streaming read bandwidth, a grid filling 80 SMs sums a large float array "
               "(coalesced 128-byte lines)",
               "workloads/ubench_mem_bandwidth/ubench_mem_bandwidth.ptx", {"ubench", "memory"}, runMemBandwidth);

}  // namespace rfsim::workloads
