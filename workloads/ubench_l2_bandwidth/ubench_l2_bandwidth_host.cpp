// L2 read bandwidth (see ubench_l2_bandwidth.cu): a 1.25 MiB float array is
// read once into the L2, then 8 times by a grid filling every SM, no SM
// reading a line it read before. The check compares every thread's sum
// exactly (the host adds in the kernel's order, in float); the bytes the
// measured launch (the last) read and wrote are measured (stats.json:
// workloads.ubench_l2_bandwidth.measured.bytes_moved), so that a caller can
// divide them by its cycles.
#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

Check runL2Bandwidth(rt::Device& dev, Size) {
  // 4 blocks of 256 threads per SM of an 80-SM V100, as ubench_mem_bandwidth;
  // one chunk of 4 floats per thread per block: 1.25 MiB.
  const uint32_t block = 256, grid = 4 * 80, threads = block * grid, chunk = 4 * block;
  const int shift = 1, passes = 8;
  const uint32_t n = chunk * grid;
  Rng rng(71);
  std::vector<float> in(n);
  for (auto& x : in) x = rng.uniform(0.0f, 1.0f);

  DeviceBuffer d_in(dev, in), d_out(dev, size_t{threads} * 4);
  dev.launch("l2_sum", {grid}, {block}, rt::KernelArgs().ptr(d_in.addr()).ptr(d_out.addr()).i32(0).i32(1));
  dev.launch("l2_sum", {grid}, {block},
             rt::KernelArgs().ptr(d_in.addr()).ptr(d_out.addr()).i32(shift).i32(passes));

  std::vector<double> ref(threads);
  for (uint32_t b = 0; b < grid; ++b) {
    for (uint32_t t = 0; t < block; ++t) {
      float s = 0.0f;
      for (int p = 0; p < passes; ++p) {
        const uint32_t c = (b + shift + p) % grid;
        for (uint32_t k = 0; k < 4; ++k) s += in[c * chunk + k * block + t];
      }
      ref[b * block + t] = s;
    }
  }
  Check c = compareFloats(d_out.download<float>(threads), ref, 0.0, 0.0, "per-thread sums");
  if (!c.passed) return c;
  const uint64_t read = uint64_t{4} * n * passes, written = uint64_t{4} * threads;
  c.detail = fmt::format("measured launch: bytes {} (read {}: the {}-byte array {} times; written {}); {} blocks x {} "
                         "threads; {}",
                         read + written, read, 4 * n, passes, written, grid, block, c.detail);
  c.measured = {{"bytes_moved", "byte", "bytes the measured (last) launch read and wrote", static_cast<double>(read + written)}};
  return c;
}

}  // namespace

RFSIM_WORKLOAD("ubench_l2_bandwidth",
               "microbenchmark: L2 read bandwidth, a grid filling 80 SMs reads a 1.25 MiB array held in the L2 "
               "8 times, no SM reading a line twice",
               "workloads/ubench_l2_bandwidth/ubench_l2_bandwidth.ptx", {"ubench", "memory"}, runL2Bandwidth);

}  // namespace rfsim::workloads
