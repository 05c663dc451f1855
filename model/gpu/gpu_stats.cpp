#include "gpu/gpu_stats.h"

#include "mem/tlm/hierarchy.h"

namespace rfsim::gpu {

namespace {

std::vector<std::string> kindNames() {
  std::vector<std::string> v;
  for (size_t k = 0; k < mem::kNumAccessKinds; ++k) v.push_back(mem::accessKindName(mem::AccessKind(k)));
  return v;
}

std::vector<std::string> smNames(uint32_t n) {
  std::vector<std::string> v;
  for (uint32_t i = 0; i < n; ++i) v.push_back("sm" + std::to_string(i));
  return v;
}

}  // namespace

L1dStats::L1dStats(stats::Group* parent, const std::string& name)
    : Group(parent, name, "L1 data caches, summed over the SMs (line requests after coalescing)"),
      ADD_STAT(accesses, stats::unit::Count, "line requests looked up (a retry after MSHRs were full counts again)"),
      ADD_STAT(hits, stats::unit::Count, "requests whose sectors were all present"),
      ADD_STAT(hit_reserved, stats::unit::Count, "requests merged into a pending miss"),
      ADD_STAT(misses, stats::unit::Count, "requests that missed (a load fetches the missing sectors)"),
      ADD_STAT(mshr_full, stats::unit::Count, "requests refused for want of an MSHR (then waited and retried)"),
      ADD_STAT(sector_misses, stats::unit::Count, "misses whose line was present (a sector was not)"),
      ADD_STAT(evictions, stats::unit::Count, "valid lines replaced"),
      ADD_STAT(dirty_writebacks, stats::unit::Count, "evictions that wrote dirty sectors to the L2"),
      ADD_STAT(writes_forwarded, stats::unit::Count, "write-evict stores sent on to the L2"),
      ADD_STAT(fills, stats::unit::Count, "fills from the L2"),
      ADD_STAT(accesses_by_kind, stats::unit::Count, "accesses per kind", mem::kNumAccessKinds, kindNames()),
      ADD_STAT(hits_by_kind, stats::unit::Count, "hits per kind", mem::kNumAccessKinds, kindNames()),
      ADD_STAT(misses_by_kind, stats::unit::Count, "misses per kind", mem::kNumAccessKinds, kindNames()),
      ADD_STAT(line_requests_by_kind, stats::unit::Count, "line requests from the coalescer per kind",
               mem::kNumAccessKinds, kindNames()),
      ADD_STAT(next_reads, stats::unit::Count, "reads sent to the L2"),
      ADD_STAT(next_writes, stats::unit::Count, "writes (stores, write-backs) sent to the L2"),
      ADD_STAT(next_atomics, stats::unit::Count, "atomics sent to the L2"),
      ADD_STAT(port_wait_cycles, stats::unit::Cycle, "cycles accesses waited for the L1D port (one line per cycle)"),
      ADD_STAT(mshr_wait_cycles, stats::unit::Cycle, "cycles requests waited for a free MSHR"),
      ADD_STAT(hit_rate, stats::unit::Ratio, "hits / accesses",
               [this] { return accesses.get() ? double(hits.get()) / double(accesses.get()) : 0.0; }),
      ADD_STAT(local_share, stats::unit::Ratio,
               "local (spill, fill, stack) share of the accesses: Kang et al. measure 40 % on V100",
               [this] {
                 const uint64_t local = accesses_by_kind[size_t(mem::AccessKind::LocalLoad)] +
                                        accesses_by_kind[size_t(mem::AccessKind::LocalStore)];
                 return accesses.get() ? double(local) / double(accesses.get()) : 0.0;
               }) {}

void L1dStats::add(const mem::L1dMemory& l1d) {
  const mem::CacheStats& s = l1d.stats();
  accesses += s.accesses;
  hits += s.hits;
  hit_reserved += s.hit_reserved;
  misses += s.misses;
  mshr_full += s.mshr_full;
  sector_misses += s.sector_misses;
  evictions += s.evictions;
  dirty_writebacks += s.dirty_writebacks;
  writes_forwarded += s.writes_forwarded;
  fills += s.fills;
  for (size_t k = 0; k < mem::kNumAccessKinds; ++k) {
    accesses_by_kind[k] += s.by_kind[k].accesses;
    hits_by_kind[k] += s.by_kind[k].hits;
    misses_by_kind[k] += s.by_kind[k].misses;
    line_requests_by_kind[k] += l1d.counters().requests[k];
  }
  const mem::L1dCounters& c = l1d.counters();
  for (size_t k = 0; k < mem::kNumAccessKinds; ++k) {  // ALL-HIT: hits the cache never saw
    accesses += c.all_hits[k];
    hits += c.all_hits[k];
    accesses_by_kind[k] += c.all_hits[k];
    hits_by_kind[k] += c.all_hits[k];
  }
  next_reads += c.next_reads;
  next_writes += c.next_writes;
  next_atomics += c.next_atomics;
  port_wait_cycles += c.port_wait_cycles;
  mshr_wait_cycles += c.mshr_wait_cycles;
}

SampleStats::SampleStats(stats::Group* parent, const std::string& name, const stats::Scalar& detailed_instrs)
    : Group(parent, name, "sampled simulation: what was extrapolated rather than simulated in detail (sim.sample)"),
      ADD_STAT(launches_skipped, stats::unit::Count,
               "launches run functionally, their cycles extrapolated from detailed launches of the same kernel and "
               "grid"),
      ADD_STAT(launches_warming, stats::unit::Count,
               "launches run in detail before a check of a stable group, to warm the caches, their statistics "
               "dropped and their cycles extrapolated as a skipped launch's"),
      ADD_STAT(blocks_detailed, stats::unit::Count, "thread blocks simulated in detail"),
      ADD_STAT(blocks_functional, stats::unit::Count, "thread blocks run functionally, their cycles extrapolated"),
      ADD_STAT(intervals, stats::unit::Count,
               "intervals (each as long as the first blocks lived) measured, up to the cut if the launch was cut"),
      ADD_STAT(cycles_extrapolated, stats::unit::Cycle,
               "cycles added by extrapolation: the launch's cycles are gpu.cycles plus these"),
      ADD_STAT(warp_instrs_functional, stats::unit::Count, "warp instructions run functionally (exact counts)"),
      ADD_STAT(cuts_refused, stats::unit::Count,
               "windows steady enough to cut the launch whose cut was withdrawn: the blocks not yet started do "
               "more or less work per block than those the window measured (block_work_deviation over "
               "sim.sample_block_tolerance), or, with sim.sample_block_compare: mix, other work (block_mix_deviation "
               "over sim.sample_block_mix_tolerance)"),
      ADD_STAT(l2_lines_warmed, stats::unit::Count,
               "line requests of functionally run blocks sent to the L2's tags (functional warming: the blocks a cut "
               "launch leaves with sim.sample_warm_l2, a skipped launch with sim.sample_warm_skipped)"),
      ADD_STAT(window_spread, stats::unit::Ratio,
               "the smallest spread of cycles per warp instruction, (max - min) / mean, of any window of "
               "sim.sample_window intervals while blocks were left to skip: a launch is cut only at a spread of "
               "at most sim.sample_tolerance (0: no such window)",
               [this] { return spread; }),
      ADD_STAT(block_work_deviation, stats::unit::Ratio,
               "at the last window steady enough to cut: how far the blocks not yet started were from the window's "
               "blocks in warp instructions per block (counted functionally), the relative differences of runs as "
               "long as the window's weighted by their share of the work left; a cut stands at most "
               "sim.sample_block_tolerance (0: none compared)",
               [this] { return work_deviation; }),
      ADD_STAT(block_mix_deviation, stats::unit::Ratio,
               "at the same window: how far the blocks not yet started were from the window's blocks in their "
               "instruction mix (each opcode's share of their warp instructions; half the sum of the shares' "
               "absolute differences, 0: the same mix, 1: none in common), runs as long as the window's weighted by "
               "their share of the work left; with sim.sample_block_compare: mix a cut stands at most "
               "sim.sample_block_mix_tolerance (0: none compared)",
               [this] { return mix_deviation; }),
      ADD_STAT(share_functional, stats::unit::Ratio, "warp instructions run functionally, of all",
               [this, &detailed_instrs] {
                 const double all = double(warp_instrs_functional.get()) + double(detailed_instrs.get());
                 return all > 0 ? double(warp_instrs_functional.get()) / all : 0.0;
               }) {}

GpuStats::GpuStats(stats::Group* parent, const std::string& name, const config::GpuConfig& cfg, uint32_t n)
    : Group(parent, name, "one kernel launch on the GPU"),
      ADD_STAT(cycles, stats::unit::Cycle, "cycles of the launch (to the last SM's last cycle)"),
      ADD_STAT(warp_instrs, stats::unit::Count, "warp instructions issued, all SMs"),
      ADD_STAT(thread_instrs, stats::unit::Count, "thread instructions issued, all SMs"),
      ADD_STAT(blocks, stats::unit::Count, "thread blocks run"),
      ADD_STAT(num_sms, stats::unit::Count, "SMs of the GPU"),
      ADD_STAT(launch_overhead_cycles, stats::unit::Cycle,
               "the launch's fixed cost (gpu.launch_overhead_ns), not in cycles"),
      ADD_STAT(cycles_with_launch, stats::unit::Cycle, "cycles + launch_overhead_cycles: the launch as the GPU times a kernel"),
      ADD_STAT(ipc, stats::unit::Ratio, "warp instructions per cycle, all SMs",
               [this] { return cycles.get() ? double(warp_instrs.get()) / double(cycles.get()) : 0.0; }),
      ADD_STAT(sm_cycles, stats::unit::Cycle, "per SM: cycles to its last cycle with work", n, smNames(n)),
      ADD_STAT(sm_blocks, stats::unit::Count, "per SM: thread blocks run", n, smNames(n)),
      ADD_STAT(sm_warp_instrs, stats::unit::Count, "per SM: warp instructions issued", n, smNames(n)),
      ADD_STAT(sm_l1i_misses, stats::unit::Count, "per SM: L1I accesses that missed a line (sent to L2)", n,
               smNames(n)),
      sm(this, "sm", cfg.sm.num_schedulers, cfg.regfile.num_banks),
      l1d(this, "l1d"),
      mem(std::make_unique<mem::HierarchyStats>(this, "mem", cfg)),
      sample(this, "sample", warp_instrs),
      ADD_STAT(l1d_mpki, stats::unit::Ratio, "L1D misses per 1000 warp instructions",
               [this] { return warp_instrs.get() ? 1000.0 * double(l1d.misses.get()) / double(warp_instrs.get()) : 0.0; }),
      ADD_STAT(l2_mpki, stats::unit::Ratio, "L2 misses per 1000 warp instructions",
               [this] { return warp_instrs.get() ? 1000.0 * double(mem->l2Misses()) / double(warp_instrs.get()) : 0.0; }),
      launch_overhead_(cfg.gpu.launchOverheadCycles()),
      max_warps_(cfg.sm.max_warps) {
  // Sizes and high-water marks: a workload's total over its launches keeps
  // the largest (stats::Accumulate::kOverTime), it does not add them.
  num_sms.maxOverTime();
  sm.max_warps.maxOverTime();
  sm.max_resident_blocks.maxOverTime();
}

GpuStats::~GpuStats() = default;

void GpuStats::collect(const std::vector<sm::Sm*>& sms, const std::vector<const mem::L1dMemory*>& l1ds,
                       const std::vector<uint64_t>& per_sm_cycles, uint64_t kernel_cycles,
                       const mem::HierarchyCounters* mem_delta) {
  resetAll();
  cycles = kernel_cycles;
  launch_overhead_cycles = launch_overhead_;
  cycles_with_launch = kernel_cycles + launch_overhead_;
  num_sms = sms.size();
  for (size_t i = 0; i < sms.size(); ++i) {
    sms[i]->syncStats();
    const sm::SmStats& s = sms[i]->stats();
    stats::accumulate(sm, s);
    warp_instrs += s.warp_instrs.get();
    thread_instrs += s.thread_instrs.get();
    blocks += s.blocks_retired.get();
    sm_cycles[i] = per_sm_cycles[i];
    sm_blocks[i] = s.blocks_retired.get();
    sm_warp_instrs[i] = s.warp_instrs.get();
    sm_l1i_misses[i] = s.l1i_misses.get();
  }
  // Warp slots of one SM (the summed value would divide occupancy by the SM count).
  sm.max_warps = max_warps_;
  for (const mem::L1dMemory* l : l1ds)
    if (l) l1d.add(*l);
  if (mem_delta) mem->set(*mem_delta, kernel_cycles);
}

}  // namespace rfsim::gpu
