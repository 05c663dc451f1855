// The issue stage: the SM's warp schedulers and each warp's status towards
// issue. Every cycle, per scheduler, it asks each of its warps why it
// cannot issue (its trap first; done or at a barrier; FetchStage's I-buffer
// empty; the static warp limit; the register allocator and the issue gate;
// the Scoreboard or DepBarriers; a free collector), lets the policy pick
// one (WarpScheduler::cycle), and issues the picked warp's next instruction
// -- or its next trap operation (TrapQueue). An instruction issues by
// running functionally (BlockStepper::step, on PhysRegFile's rows under the
// collector's translator), with the instruction observers and SIMT events
// around it, and is then timed: an InflightTable entry, the scoreboard
// reservation or dependency barriers, and a collector (the latch out,
// OperandCollector::allocate). With pipeline.dual_issue the warp's next
// instruction may follow in the same cycle; an instruction an observer
// elides is free and the warp's next one may issue in its place.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "config/gpu_config.h"
#include "func/program.h"
#include "mem/memory_interface.h"
#include "sm/core/dep_barriers.h"
#include "sm/core/fetch_stage.h"
#include "sm/core/inflight.h"
#include "sm/core/phys_regs.h"
#include "sm/core/sm_hooks.h"
#include "sm/core/sm_stats.h"
#include "sm/core/sm_trace.h"
#include "sm/core/trap_queue.h"
#include "sm/core/warp_limit.h"
#include "sm/core/warp_slots.h"
#include "sm/issue/op_class.h"
#include "sm/issue/scheduler.h"
#include "sm/issue/scoreboard.h"
#include "sm/opcoll/operand_collector.h"

namespace rfsim::sm {

// The configured latencies are dependent-issue latencies (PipelineConfig):
// an instruction spends this many cycles outside its execution unit without
// conflicts (operand read, dispatch, writeback), so the unit holds it
// latency - kStageOverhead cycles (at least 1).
inline constexpr uint32_t kStageOverhead = 3;

class IssueStage {
 public:
  // What the stage reads and changes besides its own state; all outlive it.
  struct Links {
    const func::Program& program;
    WarpSlots& warps;
    FetchStage& fetch;        // the latch in: I-buffers
    Scoreboard& sb;
    DepBarriers& deps;        // sm.dependency barriers
    TrapQueue& traps;
    PhysRegFile& regs;
    InflightTable& inflight;
    const InstalledHooks& hooks;
    mem::MemoryInterface& mem;
    SmStats& stats;
  };
  IssueStage(const config::GpuConfig& cfg, const Links& links);

  // The latch out (the SM's collector, again after Sm::install replaced it).
  void setCollector(OperandCollector& opc) { opc_ = &opc; }
  void setTraceSlot(int64_t slot) { trace_slot_ = slot; }

  // A warp came to `slot` (launch order `age`) or left it. After a block's
  // warps came or a warp left, warpsChanged (the static warp limit's order).
  void addWarp(uint32_t slot, uint64_t age);
  void removeWarp(uint32_t slot);
  void warpsChanged();

  // One cycle. `trace` (null: off) receives each scheduler's pick, at most
  // `ntrace` of them.
  void cycle(uint64_t now, SmTrace::Sched* trace, size_t ntrace);

  uint32_t numSchedulers() const { return static_cast<uint32_t>(scheds_.size()); }
  const WarpScheduler& scheduler(uint32_t i) const { return *scheds_[i]; }
  void setRoundRobin(bool on) {
    for (auto& s : scheds_) s->setRoundRobin(on);
  }
  void setActivationHook(ActivationHook* h) {
    for (auto& s : scheds_) s->setActivationHook(h);
  }
  // Idle-cycle skipping: the first release of a warp an activation holds
  // after `now` (UINT64_MAX: none); `k` skipped cycles, each with the stall
  // every scheduler reported in the last (quiet) cycle.
  uint64_t nextRelease(uint64_t now) const;
  void accountSkipped(uint64_t k);
  uint64_t activations() const;
  uint64_t deactivations() const;
  // Warps moved into or out of a two-level pool so far (0 under the other
  // policies, which have none): asked twice a tick (Sm::tick's quiet test).
  uint64_t poolMoves() const { return two_level_ ? activations() + deactivations() : 0; }
  // Stores, atomics, barrier arrivals and exits issued: what a kernel that
  // ends makes (the livelock rule, Sm::checkRunaway).
  uint64_t moves() const { return moves_; }

 private:
  // The timing of the instruction a warp issues next, computed once per
  // instruction rather than once per cycle the warp waits.
  struct Timed {
    const func::DInstr* d = nullptr;
    OpTiming timing;
    bool gated = false;  // the issue gate flagged `d` (IssueGate::flags)
    bool asked = false;  // ... and may refuse it (IssueGate::mayRefuse): mayIssue is asked
  };

  // Why warp `slot` cannot issue at `now` (None: it can). Asked of every
  // warp every cycle, so its common answers with the scoreboard are inline
  // (the outlined function's register saves alone were 4.5 % of SGEMM's
  // host instructions): still waiting on the scoreboard version it waited
  // at; its next instruction known and free of hazards at the current
  // reservation, waiting for a collector or ready; still at the barrier it
  // was found at. A mechanism's allocation and gate are asked in between
  // as warpStallFull() asks them (kHooks); every answer is the one
  // warpStallFull() would give, which asks the rest in the same order.
  Stall warpStall(uint32_t slot, uint64_t now) { return stallOf(slot, now, stallPath()); }
  // Which of the paths below answers: the same for every warp of a cycle,
  // which cycle() finds once.
  enum class StallPath : uint8_t { Hooks, Plain, BarriersHooks, BarriersPlain };
  StallPath stallPath() const {
    const bool plain = !l_.hooks.gate && l_.hooks.baseAlloc();
    if (barriers_) return plain ? StallPath::BarriersPlain : StallPath::BarriersHooks;
    return plain ? StallPath::Plain : StallPath::Hooks;
  }
  [[gnu::always_inline]] Stall stallOf(uint32_t slot, uint64_t now, StallPath path) {
    switch (path) {
      case StallPath::Plain: return stallAt<StallPath::Plain>(slot, now);
      case StallPath::Hooks: return stallAt<StallPath::Hooks>(slot, now);
      case StallPath::BarriersPlain: return stallAt<StallPath::BarriersPlain>(slot, now);
      case StallPath::BarriersHooks: return stallAt<StallPath::BarriersHooks>(slot, now);
    }
    return warpStallFull(slot, now);
  }
  template <StallPath P>
  [[gnu::always_inline]] Stall stallAt(uint32_t slot, uint64_t now) {
    if constexpr (P == StallPath::Plain) return fastStall<false>(slot, now);
    else if constexpr (P == StallPath::Hooks) return fastStall<true>(slot, now);
    else if constexpr (P == StallPath::BarriersPlain) return fastBarrierStall<false>(slot, now);
    else return fastBarrierStall<true>(slot, now);
  }
  // One scheduler's warps this cycle: each warp's stall into wstatus_, and
  // the stalls found, one bit each (WarpScheduler::cycle's `seen`). The
  // loop runs for every warp every cycle, so the stall path, the two-level
  // policy's question and the warp limit are fixed per instantiation
  // (scanFor picks one a cycle) instead of tested per warp.
  template <StallPath P, bool kTwoLevel, bool kLimit>
  uint32_t scanWarps(const WarpScheduler& sch, uint64_t now);
  using ScanFn = uint32_t (IssueStage::*)(const WarpScheduler&, uint64_t);
  ScanFn scanFor(StallPath path) const;
  template <bool kHooks>
  [[gnu::always_inline]] Stall fastStall(uint32_t slot, uint64_t now) {
    if (!l_.traps.active(slot)) [[likely]] {
      Stall h;
      if (sb_wait_[slot] == uint64_t{l_.sb.version(slot)} + 1) {
        if (kHooks && hooksMayHold(slot, timed_[slot].d, timed_[slot].asked, now, h)) return h;
        return Stall::Scoreboard;
      }
      const func::DInstr* d = ready_[slot];
      if (d && clear_at_[slot] == uint64_t{l_.sb.reserveVersion(slot)} + 1) {
        const OpTiming& t = timingOf(slot, d);
        if (kHooks && hooksMayHold(slot, d, timed_[slot].asked, now, h)) return h;
        return opc_->canAllocate(t.unit, slot) ? Stall::None : Stall::CollectorFull;
      }
      if (!d && bar_at_[slot] != 0 && bar_at_[slot] == l_.warps.stepper(l_.warps[slot]).blockEvents() + 1)
        return Stall::Barrier;
    }
    return warpStallFull(slot, now);
  }
  // The same with dependency barriers (sm.dependency: barriers), whose
  // answers the stall count and the barriers give before the scoreboard
  // (DepBarriers::stall): while either holds the warp's known next
  // instruction, that (counted as stall() counts it); once neither does,
  // the scoreboard's answer at the current reservation (clear_at_, set by
  // warpStallFull) and a free collector. On RegDem's GTX Titan X, 16 warps
  // a scheduler, this path had been a third of the host's time.
  template <bool kHooks>
  [[gnu::always_inline]] Stall fastBarrierStall(uint32_t slot, uint64_t now) {
    if (!l_.traps.active(slot)) [[likely]] {
      Stall h;
      const func::DInstr* d = ready_[slot];
      if (d) {
        const OpTiming& t = timingOf(slot, d);
        if (const int why = l_.deps.holds(slot, *d->in, now)) {
          if (kHooks && hooksMayHold(slot, d, timed_[slot].asked, now, h)) return h;
          l_.deps.countHold(why);
          return Stall::Scoreboard;
        }
        if (clear_at_[slot] == uint64_t{l_.sb.reserveVersion(slot)} + 1) {
          if (kHooks && hooksMayHold(slot, d, timed_[slot].asked, now, h)) return h;
          return opc_->canAllocate(t.unit, slot) ? Stall::None : Stall::CollectorFull;
        }
      } else if (bar_at_[slot] != 0 && bar_at_[slot] == l_.warps.stepper(l_.warps[slot]).blockEvents() + 1) {
        return Stall::Barrier;
      }
    }
    return warpStallFull(slot, now);
  }
  // A mechanism's allocation, then its gate about `d` when it `asked`
  // (Timed::asked): whether either holds the warp, and then why (`out`).
  // Most calls have nothing to ask (LTRF+ flags every instruction but may
  // refuse only an interval's entry; the baseline's allocation is always
  // ready): those are answered inline, without the call (LTRF: 2.16 M of
  // lt_hotspot's 2.28 M calls).
  [[gnu::always_inline]] bool hooksMayHold(uint32_t slot, const func::DInstr* d, bool asked, uint64_t now, Stall& out) {
    if (!asked && l_.hooks.baseAlloc()) return false;
    return hookStall(slot, d, asked, now, out);
  }
  [[gnu::noinline]] bool hookStall(uint32_t slot, const func::DInstr* d, bool asked, uint64_t now, Stall& out);
  [[gnu::noinline]] Stall warpStallFull(uint32_t slot, uint64_t now);
  // A warp that warpStall found waiting (Scoreboard): whether it waits on a
  // long-latency operation (WarpStatus::long_latency).
  bool waitsLong(uint32_t slot) const;
  bool waitsLongCached(uint32_t slot);
  // Inline: asked of every warp that reaches the collector test each
  // cycle, and almost always about the instruction it was asked last.
  const OpTiming& timingOf(uint32_t slot, const func::DInstr* d) {
    Timed& t = timed_[slot];
    if (t.d != d) [[unlikely]]
      retime(t, d);
    return t.timing;
  }
  void retime(Timed& t, const func::DInstr* d);
  // Issues the warp's next instruction; true when an observer elided it
  // (InstrObserver::elided), which leaves the scheduler's slot free.
  bool issueWarp(uint32_t slot, uint64_t now);
  void issueFrom(uint32_t slot, uint64_t now);
  Stall trapStall(uint32_t slot);
  void issueTrap(uint32_t slot, uint64_t now);
  void refreshWarpLimit();

  const config::GpuConfig& cfg_;
  Links l_;
  OperandCollector* opc_ = nullptr;
  bool barriers_;          // sm.dependency is barriers
  bool long_wait_miss_;    // sm.long_wait l1d_miss: only a load that missed the L1D is a long wait
  std::vector<std::unique_ptr<WarpScheduler>> scheds_;
  std::vector<WarpStatus> wstatus_;  // per warp slot, this cycle
  std::vector<uint64_t> sb_wait_;    // per warp slot: 1 + the scoreboard version it waits at; 0: none
  std::vector<uint64_t> sb_long_at_;  // per warp slot: the sb_wait_ at which sb_long_ was found
  std::vector<uint8_t> sb_long_;      // per warp slot: waitsLong() at that version
  bool two_level_;
  bool int_fma_;                     // pipeline.int_add_on_fma
  std::vector<Timed> timed_;         // per warp slot
  // Per warp slot: its next instruction, once warpStall() found the warp
  // Ready with that instruction in its I-buffer; null: not known. Both stay
  // so until the warp issues (only issueWarp steps a warp, and only an
  // issue flushes or empties its I-buffer, FetchStage::afterIssue), so the
  // stepper's status and peek and the I-buffer are not asked again each
  // cycle the warp waits on its stall count, a dependency barrier, the
  // scoreboard or a collector (cleared in issueWarp, addWarp, removeWarp).
  std::vector<const func::DInstr*> ready_;
  // Per warp slot: 1 + the scoreboard's reserveVersion at which ready_'s
  // instruction had no hazard (it has none while that stays); 0: not known.
  std::vector<uint64_t> clear_at_;
  // Per warp slot: 1 + its block's events (BlockStepper::blockEvents) when
  // warpStallFull() found it at a barrier; 0: not known.
  std::vector<uint64_t> bar_at_;
  WarpLimit limit_;                  // sm.warp_limit
  std::vector<Stall> last_stall_;    // per scheduler: the stall of its last cycle without issue
  int64_t trace_slot_ = -1;
  uint64_t moves_ = 0;
};

}  // namespace rfsim::sm
