// One streaming multiprocessor, cycle by cycle (plain C++; the SystemC
// process that ticks it comes separately, see STYLE.md "SystemC and speed").
//
// The Sm holds the stages, each a class of its own, and the latches between
// them (docs/sm.md "Pipeline"); tick(now) runs them in reverse pipeline
// order, so that each sees what the stage before it left last cycle:
//   1. writeback  WritebackStage (writeback_stage.h): the write-back queue's
//                 results book register-file write ports; when granted the
//                 scoreboard entries are released and dependency barriers
//                 lowered (a refused write retries); the Sm retires them.
//   2. execute    ExecStage (exec_stage.h): ExecUnit::popDone per unit type
//                 -> WritebackStage::push.
//   3. dispatch   OperandCollector::peekReady/popReady -> ExecStage's unit
//                 when it canAccept (else the instruction stays: unit busy).
//   4. collect    OperandCollector::cycle(now).
//   5. issue      IssueStage (issue_stage.h): per scheduler the per-warp
//                 status, WarpScheduler::cycle, the picked warp's
//                 instruction run functionally and timed (InflightTable,
//                 scoreboard, OperandCollector::allocate).
//   6. fetch      FetchStage (fetch_stage.h): per sub-core up to fetch_width /
//                 sub_cores warps (round robin) top their I-buffer up to
//                 ibuffer_depth through the L0 I-cache and the L1I
//                 (ifetch_path.h).
// An instruction in flight is an InflightTable entry (inflight.h) from
// issue to write-back; its tag is what the latches carry.
//
// Latencies: the configured latencies are dependent-issue latencies (see
// PipelineConfig). Without conflicts an instruction spends kStageOverhead
// cycles outside its execution unit (operand read, dispatch, writeback;
// issue_stage.h), so the unit holds it latency - kStageOverhead cycles (at
// least 1): a chain of dependent adds issues every fp32_add_latency cycles,
// and every bank or write-port conflict adds to that.
//
// Simplifications (docs/sm.md "Simplifications of this version"):
// - Memory: a fixed-latency MemoryInterface (pipeline.mem_latency) for
//   global/local/generic accesses (and st.param); ld.param/ld.const take
//   pipeline.const_latency without the MemoryInterface (a constant-bank
//   operand in SASS); shared memory costs shared.latency plus one cycle per
//   extra conflict pass (sharedConflictDegree).
// - Instruction fetch: an L1I miss costs the fixed pipeline.l1i_miss_latency
//   (an L2 hit) instead of a request through the memory hierarchy.
// - I-buffer: a count of valid entries of the warp's straight-line stream
//   plus one fetch in flight; flushed after a non-sequential pc change.
// - Control instructions write nothing (a call's callee writes its results
//   through its own instructions); predicates are scoreboarded but do not
//   use register-file banks; at most kMaxSrcOperands register reads per
//   instruction go through the banks (calls listing more are truncated).
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "config/occupancy.h"
#include "config/gpu_config.h"
#include "func/program.h"
#include "func/stepper.h"
#include "mem/memory_interface.h"
#include "sm/core/dep_barriers.h"
#include "sm/core/exec_stage.h"
#include "sm/core/fetch_stage.h"
#include "sm/core/hooks.h"
#include "sm/core/inflight.h"
#include "sm/core/issue_stage.h"
#include "sm/core/phys_regs.h"
#include "sm/core/sm_hooks.h"
#include "sm/core/sm_stats.h"
#include "sm/core/sm_trace.h"
#include "sm/core/trap_queue.h"
#include "sm/core/warp_slots.h"
#include "sm/core/writeback_stage.h"
#include "sm/issue/exec_unit.h"
#include "sm/issue/scheduler.h"
#include "sm/issue/scoreboard.h"
#include "sm/opcoll/operand_collector.h"
#include "stats/stats.h"

namespace rfsim::sm {

using mem::FixedLatencyMemory;
using mem::MemoryInterface;

class Sm {
 public:
  static constexpr uint32_t kStageOverhead = sm::kStageOverhead;

  // `regs_per_thread`: the back end's tree register count of the kernel.
  // `mem`: nullptr = a FixedLatencyMemory(pipeline.mem_latency).
  Sm(const config::GpuConfig& cfg, func::Program& program, const func::LaunchSetup& setup,
     rt::LaunchStats& launch_stats, uint32_t regs_per_thread, stats::Group* stats_parent = nullptr,
     const std::string& name = "sm", MemoryInterface* mem = nullptr);
  ~Sm();
  Sm(const Sm&) = delete;
  Sm& operator=(const Sm&) = delete;

  const config::Occupancy& occupancy() const { return occ_; }
  // Block admission (mech::Mechanism::admitBlocks): at most `blocks`
  // resident blocks, instead of the occupancy's. Before the first launch.
  void limitBlocks(uint32_t blocks);
  bool canLaunch() const;
  void launch(rt::Dim3 ctaid);

  void tick(uint64_t now);
  // Nothing resident and nothing in flight.
  bool idle() const { return resident_blocks_ == 0 && inflight_.count() == 0; }
  // The first cycle >= `cycle` at which a tick can change anything; the
  // caller may skip the ticks before it (idle-cycle skipping). After a
  // quiet tick (nothing issued, fetched, collected, executed to completion
  // or written back) the SM's state is frozen until an execution unit
  // completes, an I-buffer fill arrives or the watchdog is due, and the
  // next tick accounts for the skipped cycles in every per-cycle statistic,
  // so the statistics are those of ticking every cycle (tested). Off while
  // a trace is written, a register translator is installed, or a register
  // allocator, issue gate or register-file level cannot tell its next event
  // (nextEventCycle); a warp held by its activation (SmHooks::activation) is
  // an event at its release.
  uint64_t nextActiveCycle(uint64_t cycle) const;
  // Deferred replies (sim.parallel_sms, mem/next_level.h): after the
  // memory side's phase at the quantum's end, the latencies of the memory
  // accesses still pending (MemoryInterface::resolve) become their
  // instructions' execution latencies; one dispatched already completes at
  // its dispatch + that latency, as if it had been known at issue.
  void resolveMemory();
  // sim.parallel_sms, at the phase: resolveMemory, then the event hooks'
  // onQuantumEnd.
  void endQuantum();
  // The event hooks' onQuantumEnd alone: the phase resolves every SM's
  // memory first (on the SM pool's threads), then calls this SM by SM.
  void quantumEndHooks();
  // Where the livelock proof reads the device's write count: by default the
  // memory's own count; with parallel SMs a copy taken at each quantum's
  // end (not owned), so that no SM sees when another writes inside one.
  void readWritesFrom(const uint64_t* writes) { dev_writes_ = writes; }
  // The log the global stores and reductions of the blocks launched from
  // now on go to (func::BlockStepper::setLog; not owned); null: memory.
  void logStoresTo(func::BlockLog* log) { log_ = log; }
  // The blocks launched from now on count their writes in `writes` (not
  // owned; func::BlockStepper::countWritesIn) instead of the memory's
  // counter, which SMs on several host threads must not share.
  void countWritesIn(uint64_t* writes) { writes_ = writes; }
  // Blocks retired since the last call (the caller may launch new ones).
  bool blockFinished() {
    const bool f = finished_since_poll_ != 0;
    finished_since_poll_ = 0;
    return f;
  }
  void setOnBlockRetired(std::function<void(rt::Dim3)> f) { on_retired_ = std::move(f); }

  // Copies the counters of the collector and the schedulers into stats().
  void syncStats();
  SmStats& stats() { return *stats_; }
  const OperandCollector& collector() const { return *opc_; }
  // The bank register `reg` of the warp in `slot` is read from, under the
  // installed translator and bank map.
  uint32_t bankOf(uint32_t slot, uint16_t reg) { return opc_->bankOf(slot, reg); }
  const WarpScheduler& scheduler(uint32_t i) const { return issue_.scheduler(i); }
  // Every scheduler of the SM round robin (or back to its policy).
  void setRoundRobin(bool on) { issue_.setRoundRobin(on); }
  std::string dumpState() const;
  // Debug trace: one line on stderr per pipeline event of warp slot `slot`
  // (issue with the source banks, stall reasons, dispatch = operands read,
  // unit busy, done, write-back = scoreboard release, refused write-back);
  // -1 = off. `rfsim run --timing --debug-slot <slot>` sets it on SM 0.
  void setTraceSlot(int slot) {
    trace_slot_ = slot;
    issue_.setTraceSlot(slot);
    wb_.setTraceSlot(slot);
  }
  // Waveform trace (sm_trace.h): every tick advances `t`'s trace cycle and,
  // inside its window, records this cycle's pipeline signals. Not owned;
  // nullptr = off (one branch per tick).
  void setTrace(SmTrace* t) {
    trace_ = t;
    if (t) trace_sample_.sched.assign(t->numSchedulers(), SmTrace::Sched{});
  }

  // A mechanism's hooks (sm_hooks.h: what a bundle holds, and the rules
  // for a second mechanism's bundle). Before the first launch; throws
  // rfsim::Error for a hook another mechanism holds that cannot be shared.
  SmInstalled install(const SmHooks& hooks);
  // The device epoch at which the livelock proof found every warp of this SM
  // repeating forever or waiting at a barrier in its last tick (UINT64_MAX:
  // not found). The launch is a livelock when every busy SM says so for the
  // same epoch (KernelRunner::step).
  uint64_t cyclingEpoch() const { return cycling_at_; }
  // Blocks retired from this SM in this launch (the SM-wide "first block
  // done" flag: > 0).
  uint64_t blocksRetired() const { return stats_->blocks_retired.get(); }
  // The cycle being ticked (or the last one ticked).
  uint64_t currentCycle() const { return now_; }
  // Extension point (i) (hooks.h): warp `warp_slot` runs `ops` before its
  // next instruction (after the ones a previous trap queued); `listener`
  // (may be null, not owned) hears of each completion and of the end. The
  // warp must be resident. Callable from any hook, e.g. IssueGate::mayIssue
  // refusing a call until the trap made room, or SmEventHook::onFrameRelease.
  void trap(uint32_t warp_slot, const std::vector<TrapOp>& ops, TrapListener* listener = nullptr);
  bool trapping(uint32_t warp_slot) const {
    (void)warps_.at(warp_slot);  // range-checked
    return traps_.active(warp_slot);
  }
  // The register file's rows (SmHooks::physical_rows; phys_regs.h), for a
  // mechanism whose hardware keeps state of its own there.
  RegisterRows& registerRows() { return regs_; }
  // The base the register allocator gave the warp in `slot` at launch (the
  // baseline translator's: its register r is at row base + r).
  uint32_t warpBase(uint32_t slot) const { return opc_->baseTranslator().base(slot); }
  // Role tag of a warp slot (WarpLaunchHook; 0 when free or without a hook).
  uint32_t warpRole(uint32_t slot) const { return warps_.at(slot).role; }
  // Instructions of the warp in `slot` issued and not yet completed.
  uint32_t warpInflight(uint32_t slot) const { return warps_.at(slot).inflight; }
  // The warp in `slot` has finished (every lane exited), or the slot is free.
  bool warpDone(uint32_t slot) const { return warpStatus(slot) == func::WarpStatus::Done; }
  // Whether the warp in `slot` may run, waits at a barrier, or is done (a
  // free slot is Done).
  func::WarpStatus warpStatus(uint32_t slot) const {
    const WarpSlot& ws = warps_.at(slot);
    return ws.used ? warps_.stepper(ws).status(ws.local) : func::WarpStatus::Done;
  }

 private:
  void dispatch(uint64_t now);
  void fetch(uint64_t now);
  // An instruction written back: the warp's counts, a trap operation's
  // completion, its entry freed, the warp's slot when it is done.
  void retire(uint32_t tag, const Inflight& f, uint64_t now);
  void maybeFreeSlot(uint32_t slot);
  // The collector the stages use (again after install replaced it).
  void bindCollector();
  uint64_t progressCount() const;
  void accountSkipped(uint64_t k, uint64_t now);

  const config::GpuConfig& cfg_;
  func::Program& program_;
  const func::LaunchSetup& setup_;
  rt::LaunchStats& launch_stats_;
  uint32_t regs_per_thread_;
  config::Occupancy occ_;
  std::unique_ptr<MemoryInterface> own_mem_;
  MemoryInterface* mem_;

  WarpSlots warps_;
  uint32_t resident_blocks_ = 0, resident_warps_ = 0;
  uint64_t age_ = 0;

  std::unique_ptr<SmStats> stats_;
  // The stages (docs/sm.md "Pipeline") in pipeline order, with the state
  // they share: the scoreboard, the dependency barriers, the traps, the
  // register file's contents and the instructions in flight.
  FetchStage fetch_;
  Scoreboard sb_;
  DepBarriers deps_;  // sm.dependency barriers
  bool barriers_ = false;  // sm.dependency is barriers
  TrapQueue traps_;   // Sm::trap
  PhysRegFile regs_;  // the register file's contents (SmHooks::physical_rows)
  InflightTable inflight_;
  std::vector<MemoryInterface::Resolved> resolved_;  // resolveMemory's
  const uint64_t* dev_writes_ = nullptr;              // readWritesFrom
  func::BlockLog* log_ = nullptr;                     // logStoresTo
  uint64_t* writes_ = nullptr;                        // countWritesIn
  InstalledHooks hooks_;  // install()
  IssueStage issue_;
  OperandCollectorConfig oc_cfg_;
  std::unique_ptr<OperandCollector> opc_;
  ExecStage exec_;
  WritebackStage wb_;
  uint64_t now_ = 0;  // the cycle being ticked (for events raised below the tick)

  // Idle-cycle skipping (nextActiveCycle): the last tick was quiet (the
  // issue stage keeps the stall reason each scheduler recorded in it).
  bool quiet_ = false;
  uint64_t last_tick_ = 0;
  uint64_t last_progress_ = 0;
  // The livelock rule's progress (checkRunaway): the issue stage's count of
  // stores, atomics, barrier arrivals and exits, and when it last moved.
  uint64_t last_moves_ = 0, last_move_cycle_ = 0;
  // The livelock proof (func::BlockExecutor::armProofs): armed once no write
  // other threads could see has happened anywhere on the GPU for
  // pipeline.livelock_proof_cycles; cycling_at_ is the device epoch
  // (GlobalMemory::writes) at which every resident block was last found
  // cycling, UINT64_MAX when not.
  bool proofs_armed_ = false;
  uint64_t dev_seen_ = UINT64_MAX, dev_quiet_since_ = 0, cycling_at_ = UINT64_MAX;
  void armProofs(bool on);
  void checkRunaway(uint64_t now);
  std::string kernelName() const;
  uint32_t finished_since_poll_ = 0;
  std::function<void(rt::Dim3)> on_retired_;
  int64_t trace_slot_ = -1;
  SmTrace* trace_ = nullptr;
  bool tracing_ = false;  // this tick is recorded into trace_
  SmTrace::Sample trace_sample_;
  uint64_t trace_snap_[7] = {};
  void traceBegin();
  void traceEnd();
  void traceCounters(uint64_t v[7]) const;
};

}  // namespace rfsim::sm
