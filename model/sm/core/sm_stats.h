// The SM's statistics (defined in sm_stats.cpp).
#pragma once

#include <cstdint>
#include <string>

#include "stats/stats.h"

namespace rfsim::sm {

// The SM's statistics, one group per unit, named as the unit's module in
// the GPU's SystemC hierarchy (gpu.sm<i>.fetch, .issue, .opcoll, .simt,
// .exec, .ldst: sm_units.h), so that a unit's statistics, its waveform
// signals (sm_trace.h) and its module have one name. The SM-wide counts
// stay in the SM's own group. (The members after the groups are the same
// statistics under their old short names, for the code that counts them.)
struct FetchStats : stats::Group {
  explicit FetchStats(stats::Group* parent);
  stats::Scalar l1i_hits, l1i_misses, ibuffer_flushes;
  stats::Scalar fills, l0i_hits, l0i_misses, l0i_evictions, l1i_merges, l1i_evictions;
  stats::Scalar prefetches, prefetch_l2, prefetch_useful, stall_cycles;
};
struct IssueStats : stats::Group {
  IssueStats(stats::Group* parent, uint32_t num_schedulers);
  stats::Vector stall_cycles;  // per scheduler x Stall reason
  stats::Scalar issued_cycles;
  stats::Scalar dual_issues;      // pipeline.dual_issue: second instructions issued in a cycle
  stats::Scalar regalloc_stalls;  // warp-cycles WarpRegAllocator::ready refused
  stats::Scalar gate_stalls;      // warp-cycles refused by the IssueGate
  stats::Scalar trap_ops;         // trap operations issued (Sm::trap), not counted as warp instructions
  stats::Scalar trap_wait_cycles; // warp-cycles waiting for the warp's trap operations to complete
  stats::Scalar activations, deactivations;  // active-pool entries and exits (two-level schedulers)
  // sm.dependency barriers: barriers set, warp-cycles held by a stall count,
  // by a barrier, and by a fixed-latency result our collector delayed.
  stats::Scalar dep_barrier_sets, dep_stall_count_waits, dep_barrier_waits, dep_interlocks;
};
struct OpcollStats : stats::Group {
  OpcollStats(stats::Group* parent, uint32_t num_banks, const stats::Scalar& sm_cycles);
  stats::Vector rf_reads, rf_writes;  // per bank
  stats::Scalar bank_conflicts, write_port_conflicts, writeback_retries, collector_full;
  stats::Scalar reuse_hits;  // regfile.operand_reuse: operands read from a reuse cache, not a bank
  stats::Scalar collector_occupancy_sum;
  stats::Formula collector_occupancy;
};
struct SimtStats : stats::Group {
  explicit SimtStats(stats::Group* parent);
  stats::Scalar divergent_branches;
};
struct ExecStats : stats::Group {
  explicit ExecStats(stats::Group* parent);
  stats::Scalar unit_busy;
  stats::Scalar int_on_fma;  // pipeline.int_add_on_fma: integer adds the FP32 unit took
  // Per operation class (UnitType, before the INT/DP-on-SP fallback): what
  // the energy model charges per active lane.
  stats::Vector warp_instrs_by_unit, thread_instrs_by_unit;
};
struct LdstStats : stats::Group {
  explicit LdstStats(stats::Group* parent);
  stats::Scalar mem_accesses, const_accesses, shared_accesses, shared_passes, shared_extra_passes;
  stats::Scalar trap_stores, trap_loads;  // trap spills and fills (also in mem_accesses)
};

struct SmStats : stats::Group {
  SmStats(stats::Group* parent, const std::string& name, uint32_t num_schedulers, uint32_t num_banks);
  stats::Scalar cycles, active_cycles, ticks, warp_instrs, thread_instrs;
  stats::Formula ipc;
  stats::Scalar resident_warps_sum, max_warps;
  stats::Formula achieved_occupancy;
  stats::Scalar blocks_launched, blocks_retired;
  stats::Scalar max_resident_blocks;   // high-water mark (summed over SMs in the GPU's totals)
  stats::Vector warp_instrs_by_role;   // kMaxWarpRoles entries (WarpLaunchHook)
  FetchStats fetch;
  IssueStats issue;
  OpcollStats opcoll;
  SimtStats simt;
  ExecStats exec;
  LdstStats ldst;

  stats::Vector &stall_cycles;
  stats::Scalar &issued_cycles, &dual_issues, &regalloc_stalls, &gate_stalls;
  stats::Vector &rf_reads, &rf_writes;
  stats::Scalar &bank_conflicts, &write_port_conflicts, &writeback_retries, &collector_full;
  stats::Scalar &collector_occupancy_sum;
  stats::Scalar &divergent_branches;
  stats::Scalar &unit_busy, &int_on_fma;
  stats::Vector &warp_instrs_by_unit, &thread_instrs_by_unit;
  stats::Scalar &mem_accesses, &const_accesses, &shared_accesses, &shared_passes, &shared_extra_passes;
  stats::Scalar &l1i_hits, &l1i_misses, &ibuffer_flushes;
};

}  // namespace rfsim::sm
