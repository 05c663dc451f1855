// The SM's statistics: names, units and descriptions (sm.h, SmStats), their
// values gathered from the units (syncStats), and the state report a
// deadlock error prints (dumpState).
#include "sm/core/sm.h"

#include <fmt/format.h>

namespace rfsim::sm {

namespace {

// "s<scheduler>.<reason>" for the stall_cycles vector.
std::vector<std::string> stallSubnames(uint32_t n) {
  std::vector<std::string> v;
  for (uint32_t s = 0; s < n; ++s)
    for (size_t r = 0; r < static_cast<size_t>(Stall::Count_); ++r)
      v.push_back(fmt::format("s{}.{}", s, stallName(static_cast<Stall>(r))));
  return v;
}

std::vector<std::string> unitSubnames() {
  std::vector<std::string> v;
  for (unsigned u = 0; u < kNumUnitTypes; ++u) v.push_back(unitName(static_cast<UnitType>(u)));
  return v;
}

}  // namespace

FetchStats::FetchStats(stats::Group* parent)
    : Group(parent, "fetch", "instruction fetch: the L0 I-caches, the L1I and the per-warp I-buffers"),
      ADD_STAT(l1i_hits, stats::unit::Count,
               "L1I accesses (I-buffer fills the L0 missed, or every fill without an L0) whose lines had all "
               "arrived in the L1I"),
      ADD_STAT(l1i_misses, stats::unit::Count, "L1I accesses that missed a line (sent to L2)"),
      ADD_STAT(ibuffer_flushes, stats::unit::Count, "I-buffers flushed by a non-sequential pc"),
      ADD_STAT(fills, stats::unit::Count, "I-buffer fills started"),
      ADD_STAT(l0i_hits, stats::unit::Count, "I-buffer fills whose lines were all in the sub-core's L0 I-cache"),
      ADD_STAT(l0i_misses, stats::unit::Count, "I-buffer fills that missed a line in the L0 (went to the L1I)"),
      ADD_STAT(l0i_evictions, stats::unit::Count, "lines replaced in the L0 I-caches"),
      ADD_STAT(l1i_merges, stats::unit::Count,
               "L1I accesses that missed nothing but waited for a line in flight (merged into its MSHR)"),
      ADD_STAT(l1i_evictions, stats::unit::Count, "lines replaced in the L1I"),
      ADD_STAT(prefetches, stats::unit::Count, "lines the instruction prefetcher brought into the first level"),
      ADD_STAT(prefetch_l2, stats::unit::Count, "of those, lines the L1I missed (fetched from L2)"),
      ADD_STAT(prefetch_useful, stats::unit::Count, "prefetched lines a fill then used"),
      ADD_STAT(stall_cycles, stats::unit::Cycle,
               "warp-cycles a warp found with an empty I-buffer waited for its fill in flight") {}

IssueStats::IssueStats(stats::Group* parent, uint32_t num_schedulers)
    : Group(parent, "issue", "the warp schedulers, the scoreboard and the issue gate"),
      ADD_STAT(stall_cycles, stats::unit::Cycle, "per scheduler: cycles by issue outcome (none = issued)",
               size_t(num_schedulers) * size_t(Stall::Count_), stallSubnames(num_schedulers)),
      ADD_STAT(issued_cycles, stats::unit::Cycle, "scheduler-cycles that issued an instruction"),
      ADD_STAT(dual_issues, stats::unit::Count, "second instructions issued by a scheduler in one cycle (dual issue)"),
      ADD_STAT(regalloc_stalls, stats::unit::Count,
               "warp-cycles a warp waited for its register allocation to be usable (WarpRegAllocator::ready)"),
      ADD_STAT(gate_stalls, stats::unit::Count, "warp-cycles refused by the issue gate (extension point (d))"),
      ADD_STAT(trap_ops, stats::unit::Count,
               "trap operations issued (spills and fills a mechanism injected, extension point (i))"),
      ADD_STAT(trap_wait_cycles, stats::unit::Count,
               "warp-cycles a warp waited for its trap operations to complete"),
      ADD_STAT(activations, stats::unit::Count, "warps that entered a scheduler's active pool (two_level)"),
      ADD_STAT(deactivations, stats::unit::Count, "warps that left a scheduler's active pool (two_level)"),
      ADD_STAT(dep_barrier_sets, stats::unit::Count,
               "dependency barriers set by issued instructions (sm.dependency barriers)"),
      ADD_STAT(dep_stall_count_waits, stats::unit::Count,
               "warp-cycles a warp waited for its last instruction's stall count (sm.dependency barriers)"),
      ADD_STAT(dep_barrier_waits, stats::unit::Count,
               "warp-cycles a warp waited on a dependency barrier (sm.dependency barriers)"),
      ADD_STAT(dep_interlocks, stats::unit::Count,
               "warp-cycles a warp waited for a fixed-latency result its stall counts did not cover, delayed by "
               "the operand collector or a write port (sm.dependency barriers)") {}

OpcollStats::OpcollStats(stats::Group* parent, uint32_t num_banks, const stats::Scalar& sm_cycles)
    : Group(parent, "opcoll", "the operand collector with the banked register file and its arbiter"),
      ADD_STAT(rf_reads, stats::unit::Count, "register-file reads per bank", num_banks),
      ADD_STAT(rf_writes, stats::unit::Count, "register-file writes per bank", num_banks),
      ADD_STAT(bank_conflicts, stats::unit::Count, "operand reads delayed by a busy bank"),
      ADD_STAT(write_port_conflicts, stats::unit::Count, "write-port requests refused"),
      ADD_STAT(writeback_retries, stats::unit::Count, "instruction writebacks retried next cycle"),
      ADD_STAT(collector_full, stats::unit::Count, "collector allocations that failed"),
      ADD_STAT(reuse_hits, stats::unit::Count,
               "operand reads served by an operand reuse cache instead of a bank (regfile.operand_reuse)"),
      ADD_STAT(collector_occupancy_sum, stats::unit::Count, "busy collectors summed over cycles"),
      ADD_STAT(collector_occupancy, stats::unit::Ratio, "average busy collectors",
               [this, &sm_cycles] {
                 return sm_cycles.get() ? double(collector_occupancy_sum.get()) / double(sm_cycles.get()) : 0.0;
               }) {}

SimtStats::SimtStats(stats::Group* parent)
    : Group(parent, "simt", "the SIMT stacks (reconvergence of divergent warps)"),
      ADD_STAT(divergent_branches, stats::unit::Count, "branches that split a warp") {}

ExecStats::ExecStats(stats::Group* parent)
    : Group(parent, "exec", "the execution units (SP, INT, SFU, DP, tensor, LDST pipelines)"),
      ADD_STAT(unit_busy, stats::unit::Count, "dispatch attempts refused by a busy execution unit"),
      ADD_STAT(int_on_fma, stats::unit::Count,
               "integer adds, subtracts and moves dispatched to the FP32 unit while their INT unit was busy "
               "(pipeline.int_add_on_fma)"),
      ADD_STAT(warp_instrs_by_unit, stats::unit::Count, "warp instructions issued per operation class", kNumUnitTypes,
               unitSubnames()),
      ADD_STAT(thread_instrs_by_unit, stats::unit::Count, "thread instructions (active lanes; one for an instruction on the scalar pipeline) per operation class",
               kNumUnitTypes, unitSubnames()) {}

LdstStats::LdstStats(stats::Group* parent)
    : Group(parent, "ldst", "the load/store unit: shared memory, the constant bank, the port to the L1D"),
      ADD_STAT(mem_accesses, stats::unit::Count,
               "warp accesses through the memory interface (global/local/generic, st.param)"),
      ADD_STAT(const_accesses, stats::unit::Count, "ld.param/ld.const warp accesses (pipeline.const_latency)"),
      ADD_STAT(shared_accesses, stats::unit::Count, "shared-memory warp accesses"),
      ADD_STAT(shared_passes, stats::unit::Count, "shared-memory passes (bank conflict degree summed)"),
      ADD_STAT(shared_extra_passes, stats::unit::Count, "shared-memory passes beyond one per access"),
      ADD_STAT(trap_stores, stats::unit::Count, "trap spills: local stores a mechanism injected (in mem_accesses)"),
      ADD_STAT(trap_loads, stats::unit::Count, "trap fills: local loads a mechanism injected (in mem_accesses)") {}

SmStats::SmStats(stats::Group* parent, const std::string& name, uint32_t num_schedulers, uint32_t num_banks)
    : Group(parent, name, "one streaming multiprocessor (cycle-level timing)"),
      ADD_STAT(cycles, stats::unit::Cycle, "cycles ticked"),
      ADD_STAT(active_cycles, stats::unit::Cycle, "cycles with at least one resident warp"),
      ADD_STAT(ticks, stats::unit::Cycle,
               "cycles stepped one by one; the others were skipped as idle (Sm::nextActiveCycle): the host's work, "
               "not a timing figure"),
      ADD_STAT(warp_instrs, stats::unit::Count, "warp instructions issued"),
      ADD_STAT(thread_instrs, stats::unit::Count, "thread instructions issued (active lanes)"),
      ADD_STAT(ipc, stats::unit::Ratio, "warp instructions per cycle",
               [this] { return cycles.get() ? double(warp_instrs.get()) / double(cycles.get()) : 0.0; }),
      ADD_STAT(resident_warps_sum, stats::unit::Count, "resident warps summed over active cycles"),
      ADD_STAT(max_warps, stats::unit::Count, "warp slots of the SM"),
      ADD_STAT(achieved_occupancy, stats::unit::Ratio, "average resident warps / max warps (active cycles)",
               [this] {
                 return active_cycles.get() && max_warps.get()
                            ? double(resident_warps_sum.get()) / double(active_cycles.get()) / double(max_warps.get())
                            : 0.0;
               }),
      ADD_STAT(blocks_launched, stats::unit::Count, "thread blocks launched"),
      ADD_STAT(blocks_retired, stats::unit::Count, "thread blocks retired"),
      ADD_STAT(max_resident_blocks, stats::unit::Count, "most thread blocks resident at once"),
      ADD_STAT(warp_instrs_by_role, stats::unit::Count,
               "warp instructions issued per warp role (extension point (e))", kMaxWarpRoles),
      fetch(this),
      issue(this, num_schedulers),
      opcoll(this, num_banks, cycles),
      simt(this),
      exec(this),
      ldst(this),
      stall_cycles(issue.stall_cycles),
      issued_cycles(issue.issued_cycles),
      dual_issues(issue.dual_issues),
      regalloc_stalls(issue.regalloc_stalls),
      gate_stalls(issue.gate_stalls),
      rf_reads(opcoll.rf_reads),
      rf_writes(opcoll.rf_writes),
      bank_conflicts(opcoll.bank_conflicts),
      write_port_conflicts(opcoll.write_port_conflicts),
      writeback_retries(opcoll.writeback_retries),
      collector_full(opcoll.collector_full),
      collector_occupancy_sum(opcoll.collector_occupancy_sum),
      divergent_branches(simt.divergent_branches),
      unit_busy(exec.unit_busy),
      int_on_fma(exec.int_on_fma),
      warp_instrs_by_unit(exec.warp_instrs_by_unit),
      thread_instrs_by_unit(exec.thread_instrs_by_unit),
      mem_accesses(ldst.mem_accesses),
      const_accesses(ldst.const_accesses),
      shared_accesses(ldst.shared_accesses),
      shared_passes(ldst.shared_passes),
      shared_extra_passes(ldst.shared_extra_passes),
      l1i_hits(fetch.l1i_hits),
      l1i_misses(fetch.l1i_misses),
      ibuffer_flushes(fetch.ibuffer_flushes) {}

void Sm::syncStats() {
  const OperandCollectorStats& o = opc_->stats();
  for (size_t b = 0; b < stats_->rf_reads.size() && b < kMaxBanks; ++b) {
    stats_->rf_reads[b] = o.bank_reads[b];
    stats_->rf_writes[b] = o.bank_writes[b];
  }
  stats_->bank_conflicts = o.bank_conflicts;
  stats_->write_port_conflicts = o.write_port_conflicts;
  stats_->opcoll.reuse_hits = o.reuse_hits;
  stats_->collector_occupancy_sum = o.occupancy_sum;
  stats_->issue.activations = issue_.activations();
  stats_->issue.deactivations = issue_.deactivations();
}

std::string Sm::dumpState() const {
  std::string s;
  for (uint32_t i = 0; i < warps_.size(); ++i) {
    const WarpSlot& ws = warps_[i];
    if (!ws.used) continue;
    const ResidentBlock& b = warps_.block(ws.block);
    const rt::Dim3 c = b.stepper->ctaid();
    std::string regs;
    for (uint32_t r = 0; r < ptx::mach::kNumRegIds; ++r)
      if (sb_.reserved(i, r)) regs += (regs.empty() ? "" : ",") + std::to_string(r);
    s += fmt::format("  slot {} role {} block ({},{},{}) {} | scoreboard [{}] | pending mem {} | in flight {} | "
                     "ibuffer {} valid, {} pending{}\n",
                     i, ws.role, c.x, c.y, c.z, b.stepper->describeWarp(ws.local), regs, ws.mem_pending, ws.inflight,
                     fetch_.valid(i), fetch_.pending(i),
                     traps_.describe(i));
  }
  if (const std::string a = hooks_.alloc->describe(); !a.empty()) s += "  register allocation: " + a + "\n";
  if (hooks_.gate)
    if (const std::string g = hooks_.gate->describe(); !g.empty()) s += g;
  return s;
}

}  // namespace rfsim::sm
