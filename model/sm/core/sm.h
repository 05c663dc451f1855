// One streaming multiprocessor, cycle by cycle (plain C++; the SystemC
// process that ticks it comes separately, see STYLE.md "SystemC and speed").
//
// The Sm holds the stages, each a class of its own, and the latches between
// them (docs/sm.md "Pipeline"); tick(now) runs them in reverse pipeline
// order, so that each sees what the stage before it left last cycle:
//   1. writeback  the write-back queue's results book register-file write
//                 ports (OperandCollector::requestWrites); when granted the
//                 scoreboard entries are released and dependency barriers
//                 lowered; a refused write retries.
//   2. execute    ExecStage (exec_stage.h): ExecUnit::popDone per unit type
//                 -> the write-back queue.
//   3. dispatch   OperandCollector::peekReady/popReady -> ExecStage's unit
//                 when it canAccept (else the instruction stays: unit busy).
//   4. collect    OperandCollector::cycle(now).
//   5. issue      per scheduler (sm_issue.cpp): per-warp status (FetchStage's
//                 I-buffer, WarpLimit, TrapQueue, allocator and IssueGate,
//                 Scoreboard or DepBarriers, a free collector),
//                 WarpScheduler::cycle, then the picked warp's instruction
//                 runs functionally (BlockStepper::step, on PhysRegFile's rows
//                 under a translator) and is timed: scoreboard reserve,
//                 collector allocate.
//   6. fetch      FetchStage (fetch_stage.h): up to fetch_width warps (round
//                 robin) top their I-buffer up to ibuffer_depth through the L1I.
//
// Latencies: the configured latencies are dependent-issue latencies (see
// PipelineConfig). Without conflicts an instruction spends kStageOverhead
// cycles outside its execution unit (operand read, dispatch, writeback), so
// the unit holds it latency - kStageOverhead cycles (at least 1): a chain of
// dependent adds issues every fp32_add_latency cycles, and every bank or
// write-port conflict adds to that.
//
// Simplifications (docs/sm.md "Simplifications of this version"):
// - Memory: a fixed-latency MemoryInterface (pipeline.mem_latency) for
//   global/local/generic accesses (and st.param); ld.param/ld.const take
//   pipeline.const_latency without the MemoryInterface (a constant-bank
//   operand in SASS); shared memory costs shared.latency plus one cycle per
//   extra conflict pass (sharedConflictDegree).
// - L1I: an unbounded set of 128-byte lines per SM (line = function index,
//   pc * 16 / 128). A fetch touching a line never fetched before costs
//   pipeline.l1i_miss_latency, otherwise l1i.latency. No capacity misses.
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
#include "sm/core/phys_regs.h"
#include "sm/core/sm_hooks.h"
#include "sm/core/sm_stats.h"
#include "sm/core/sm_trace.h"
#include "sm/core/trap_queue.h"
#include "sm/core/warp_limit.h"
#include "sm/issue/exec_unit.h"
#include "sm/issue/op_class.h"
#include "sm/issue/scheduler.h"
#include "sm/issue/scoreboard.h"
#include "sm/opcoll/operand_collector.h"
#include "stats/stats.h"

namespace rfsim::sm {

using mem::FixedLatencyMemory;
using mem::MemoryInterface;

class Sm {
 public:
  static constexpr uint32_t kStageOverhead = 3;

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
  bool idle() const { return resident_blocks_ == 0 && inflight_count_ == 0; }
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
  const WarpScheduler& scheduler(uint32_t i) const { return *scheds_[i]; }
  // Every scheduler of the SM round robin (or back to its policy).
  void setRoundRobin(bool on) {
    for (auto& s : scheds_) s->setRoundRobin(on);
  }
  std::string dumpState() const;
  // Debug trace: one line on stderr per pipeline event of warp slot `slot`
  // (issue with the source banks, stall reasons, dispatch = operands read,
  // unit busy, done, write-back = scoreboard release, refused write-back);
  // -1 = off. `rfsim run --timing --debug-slot <slot>` sets it on SM 0.
  void setTraceSlot(int slot) { trace_slot_ = slot; }
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
    (void)slots_.at(warp_slot);  // range-checked
    return traps_.active(warp_slot);
  }
  // The register file's rows (SmHooks::physical_rows; phys_regs.h), for a
  // mechanism whose hardware keeps state of its own there.
  RegisterRows& registerRows() { return regs_; }
  // The base the register allocator gave the warp in `slot` at launch (the
  // baseline translator's: its register r is at row base + r).
  uint32_t warpBase(uint32_t slot) const { return opc_->baseTranslator().base(slot); }
  // Role tag of a warp slot (WarpLaunchHook; 0 when free or without a hook).
  uint32_t warpRole(uint32_t slot) const { return slots_.at(slot).role; }
  // Instructions of the warp in `slot` issued and not yet completed.
  uint32_t warpInflight(uint32_t slot) const { return slots_.at(slot).inflight; }
  // The warp in `slot` has finished (every lane exited), or the slot is free.
  bool warpDone(uint32_t slot) const { return warpStatus(slot) == func::WarpStatus::Done; }
  // Whether the warp in `slot` may run, waits at a barrier, or is done (a
  // free slot is Done).
  func::WarpStatus warpStatus(uint32_t slot) const {
    const WarpSlot& ws = slots_.at(slot);
    return ws.used ? blocks_[ws.block]->stepper->status(ws.local) : func::WarpStatus::Done;
  }

 private:
  struct Block {
    std::unique_ptr<func::BlockStepper> stepper;
    std::vector<uint32_t> slots;  // warp slot of each warp of the block
    uint32_t live = 0;            // slots not yet freed
  };
  struct WarpSlot {
    bool used = false;
    int32_t block = -1;           // index into blocks_
    uint32_t local = 0;           // warp index in its block
    uint32_t role = 0;            // WarpLaunchHook's tag
    uint32_t inflight = 0, mem_pending = 0;
    // The timing of the instruction the warp issues next, computed once per
    // instruction rather than once per cycle the warp waits.
    const func::DInstr* timed = nullptr;
    OpTiming timing;
    bool gated = false;  // the issue gate flagged `timed` (IssueGate::flags)
    uint64_t age = 0;             // launch order on this SM
  };
  struct Inflight {
    uint32_t slot = 0, pc = 0;
    const func::DInstr* d = nullptr;
    UnitType unit = UnitType::SP;
    uint32_t exec_latency = 1, ii = 1;
    bool writes = false, long_latency = false, mem = false;
    bool scalar = false;  // executes on the scalar pipeline (InstrObserver::scalar)
    uint8_t written = 0;  // destination registers already written back (a write split over cycles)
    bool rows_known = false;  // wrow holds the destinations' rows, translated at issue
    std::array<uint32_t, 16> wrow{};
    const TrapQueue::Entry* trap = nullptr;  // a trap operation (Sm::trap)
    uint8_t wbar = 0, rbar = 0;       // dependency barriers it set (1..6; 0: none)
  };

  void writeback(uint64_t now);
  void execute(uint64_t now);
  void dispatch(uint64_t now);
  void issue(uint64_t now);
  void fetch(uint64_t now);
  Stall warpStall(uint32_t slot, uint64_t now);
  const OpTiming& timingOf(WarpSlot& ws, const func::DInstr* d);
  // Issues the warp's next instruction; true when an observer elided it
  // (InstrObserver::elided), which leaves the scheduler's slot free.
  bool issueWarp(uint32_t slot, uint64_t now);
  void issueFrom(uint32_t slot, uint64_t now);
  Stall trapStall(uint32_t slot);
  void issueTrap(uint32_t slot, uint64_t now);
  void maybeFreeSlot(uint32_t slot);
  // sm_trap.cpp: the static warp limit's order after a warp came or went,
  // its mask every cycle (warp_limit.h).
  void updateWarpLimit();
  void refreshWarpLimit();
  uint64_t progressCount() const;
  void accountSkipped(uint64_t k, uint64_t now);
  uint32_t allocInflight();
  const config::GpuConfig& cfg_;
  func::Program& program_;
  const func::LaunchSetup& setup_;
  rt::LaunchStats& launch_stats_;
  uint32_t regs_per_thread_;
  config::Occupancy occ_;
  std::unique_ptr<MemoryInterface> own_mem_;
  MemoryInterface* mem_;

  std::vector<std::unique_ptr<Block>> blocks_;  // indexed by Block id; null when retired
  std::vector<int32_t> free_block_ids_;
  std::vector<WarpSlot> slots_;
  uint32_t resident_blocks_ = 0, resident_warps_ = 0;
  uint64_t age_ = 0;

  std::unique_ptr<SmStats> stats_;
  // The stages (docs/sm.md "Pipeline"), in pipeline order; the operand
  // collector, the schedulers and the write-back queue below.
  FetchStage fetch_;
  Scoreboard sb_;
  DepBarriers deps_;  // sm.dependency barriers
  ExecStage exec_;
  bool barriers_ = false;  // sm.dependency is barriers
  OperandCollectorConfig oc_cfg_;
  std::unique_ptr<OperandCollector> opc_;
  InstalledHooks hooks_;  // install()
  bool long_wait_miss_ = false;  // sm.long_wait l1d_miss: only a load that missed the L1D is a long wait
  uint64_t now_ = 0;  // the cycle being ticked (for events raised below the tick)
  std::vector<std::unique_ptr<WarpScheduler>> scheds_;
  std::vector<WarpStatus> wstatus_;

  PhysRegFile regs_;  // the register file's contents (SmHooks::physical_rows)
  WarpLimit limit_;   // sm.warp_limit
  TrapQueue traps_;   // Sm::trap

  std::vector<Inflight> inflight_;
  std::vector<uint32_t> free_inflight_;
  uint32_t inflight_count_ = 0;
  std::deque<uint32_t> wb_queue_;

  // Idle-cycle skipping (nextActiveCycle): the last tick was quiet, and the
  // stall reason each scheduler recorded in it.
  bool quiet_ = false;
  uint64_t last_tick_ = 0;
  std::vector<Stall> quiet_stall_;
  uint64_t last_progress_ = 0;
  uint64_t wb_done_ = 0;  // instructions retired (watchdog progress)
  // The livelock rule's progress (checkRunaway): stores, atomics, barrier
  // arrivals and exits issued, and when their count last moved.
  uint64_t moves_ = 0, last_moves_ = 0, last_move_cycle_ = 0;
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
