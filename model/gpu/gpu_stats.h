// The statistics of one kernel launch on the GPU (KernelRunner::stats()):
// totals over the SMs, the L1Ds summed over the SMs, and the memory
// hierarchy's part of the launch (L2 slices, DRAM, crossbar).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "config/gpu_config.h"
#include "mem/cache.h"
#include "mem/l1d_memory.h"
#include "sm/core/sm.h"
#include "stats/stats.h"

namespace rfsim::mem {
struct HierarchyCounters;
class HierarchyStats;
}  // namespace rfsim::mem

namespace rfsim::gpu {

// The L1Ds of all SMs, summed.
struct L1dStats : stats::Group {
  L1dStats(stats::Group* parent, const std::string& name);
  // Adds one SM's L1D.
  void add(const mem::L1dMemory& l1d);

  stats::Scalar accesses, hits, hit_reserved, misses, mshr_full, sector_misses, evictions;
  stats::Scalar dirty_writebacks, writes_forwarded, fills;
  stats::Vector accesses_by_kind, hits_by_kind, misses_by_kind, line_requests_by_kind;
  stats::Scalar next_reads, next_writes, next_atomics, port_wait_cycles, mshr_wait_cycles;
  stats::Formula hit_rate, local_share;
};

// What sampled simulation extrapolated (sim.sample; gpu/block_sampler.h,
// runtime/launch_sampler.h). Everything else in GpuStats counts what was
// simulated in detail only; the launch's cycles as a run reports them
// (stats.json's "cycles" and summary) are gpu.cycles + cycles_extrapolated.
struct SampleStats : stats::Group {
  SampleStats(stats::Group* parent, const std::string& name, const stats::Scalar& detailed_instrs);
  stats::Scalar launches_skipped, launches_warming, blocks_detailed, blocks_functional, intervals, cycles_extrapolated,
      warp_instrs_functional, cuts_refused, l2_lines_warmed;
  double spread = 0.0;      // BlockSampler::spread of the launch (gpu/block_sampler.h)
  double work_deviation = 0.0;  // the blocks left's work against the window's (KernelRunner::admitCut)
  double mix_deviation = 0.0;   // the same of their instruction mix
  stats::Formula window_spread, block_work_deviation, block_mix_deviation;
  stats::Formula share_functional;
};

struct GpuStats : stats::Group {
  GpuStats(stats::Group* parent, const std::string& name, const config::GpuConfig& cfg, uint32_t num_sms);
  ~GpuStats() override;

  stats::Scalar cycles, warp_instrs, thread_instrs, blocks, num_sms;
  // The launch's fixed cost (gpu.launch_overhead_ns in cycles) and the
  // launch's cycles with it: what events around the launch would time.
  // `cycles` leaves it out (first block to last, as the mechanisms' speedups
  // count).
  stats::Scalar launch_overhead_cycles, cycles_with_launch;
  stats::Formula ipc;
  // Per SM (sm_l1i_misses shows an SM whose I-cache thrashes while the rest do not).
  stats::Vector sm_cycles, sm_blocks, sm_warp_instrs, sm_l1i_misses;
  sm::SmStats sm;  // summed over the SMs (its cycles are SM-cycles, its ipc per SM)
  L1dStats l1d;
  std::unique_ptr<mem::HierarchyStats> mem;  // the hierarchy's share of this launch
  SampleStats sample;
  stats::Formula l1d_mpki, l2_mpki;          // misses per 1000 warp instructions

  // Fills everything from the launch's SMs and L1Ds and the hierarchy's
  // counters over the launch (`mem_delta`, nullptr with sim.memory: fixed).
  void collect(const std::vector<sm::Sm*>& sms, const std::vector<const mem::L1dMemory*>& l1ds,
               const std::vector<uint64_t>& sm_cycles, uint64_t kernel_cycles,
               const mem::HierarchyCounters* mem_delta);

 private:
  uint64_t launch_overhead_;  // gpu.launch_overhead_ns in cycles
  uint32_t max_warps_;
};

}  // namespace rfsim::gpu
