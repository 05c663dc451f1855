// Global-memory latency per level by pointer chasing (see
// ubench_mem_latency.cu and the Microbenchmarks section of
// docs/workloads.md): three chains, one launch of one thread each, laid out
// so that the timed loads hit the L1D, hit the L2 after missing the L1D, and
// miss both. The CPU check verifies where each chase ended; the %clock64
// delta per timed load is reported (and must be positive), in the detail and
// as stats.json's workloads.ubench_mem_latency.measured.latency_l1, _l2 and
// _dram: under the functional model %clock64 counts the block's warp
// instructions, under the SM timing model it counts cycles.
#include "workloads/common/pointer_chase.h"

namespace rfsim::workloads {
namespace {

constexpr uint64_t kLine = 128;  // one chain word per line: no two consecutive loads share a line

// L1: 8 KiB (64 lines) fits the smallest L1D (maxwell: 16 KiB, 4 ways x 32
//   sets, 2 lines per set); one untimed pass fills it, the timed loads go
//   round the cycle again and again.
// L2: the untimed pass touches every line of a region far above any L1D
//   (16-96 KiB) and below the smallest L2 (maxwell: 2 MiB); the timed loads
//   then go round the cycle from the start again: between two visits of a
//   line the chase touches every other line of the region, so under LRU the
//   line has left the L1D but not the L2.
// DRAM: words one every `spacing` bytes of a region above the largest L2
//   (v100: 6 MiB), and warm + timed below the number of words, so every
//   load touches a line for the first time: L1D and L2 misses by
//   construction, whatever the replacement policy. The untimed loads (DRAM
//   misses as well) only bring the loop's code into the L1I.
std::vector<Chase> footprints(Size size) {
  if (size == Size::Small)
    return {{"L1", "l1", 8u << 10, kLine, 64, 512, false, false},
            {"L2", "l2", 1u << 20, kLine, 8192, 512, false, false},
            {"DRAM", "dram", 16u << 20, 16u << 10, 64, 512, false, true}};
  return {{"L1", "l1", 8u << 10, kLine, 64, 4096, false, false},
          {"L2", "l2", 1u << 20, kLine, 8192, 4096, false, false},
          {"DRAM", "dram", 32u << 20, 4u << 10, 256, 4096, false, true}};
}

Check runMemLatency(rt::Device& dev, Size size) { return runChases(dev, footprints(size), 61); }

}  // namespace

RFSIM_WORKLOAD("ubench_mem_latency",
               "microbenchmark: global load latency by pointer chasing over L1-, L2- and DRAM-sized footprints, "
               "timed with %clock64",
               "workloads/ubench_mem_latency/ubench_mem_latency.ptx", {"ubench", "memory"}, runMemLatency);

}  // namespace rfsim::workloads
