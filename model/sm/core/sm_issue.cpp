// The SM's issue stage (sm.h): each scheduler's view of its warps (why a
// warp cannot issue this cycle), the pick, dual issue, and the instructions
// an observer elides (InstrObserver::elided: free, the warp's next one may
// issue in the same cycle).
#include <algorithm>

#include <fmt/format.h>

#include "common/error.h"
#include "sm/core/sm.h"
#include "sm/core/sm_internal.h"

namespace rfsim::sm {

const OpTiming& Sm::timingOf(WarpSlot& ws, const func::DInstr* d) {
  if (ws.timed != d) {
    ws.timing = opTiming(*d->in, cfg_);
    ws.gated = hooks_.gate && hooks_.gate->flags(*d);
    ws.timed = d;
  }
  return ws.timing;
}

Stall Sm::warpStall(uint32_t s, uint64_t now) {
  WarpSlot& ws = slots_[s];
  if (traps_.active(s)) return trapStall(s);  // the trap's operations go first
  func::BlockStepper& st = *blocks_[ws.block]->stepper;
  const func::WarpStatus fs = st.status(ws.local);
  if (fs == func::WarpStatus::Done) return Stall::NoWarp;
  if (fs == func::WarpStatus::AtBarrier) return Stall::Barrier;
  if (!fetch_.hasInstr(s, now)) return Stall::IbufferEmpty;
  const func::DInstr* d = st.peek(ws.local);
  if (!hooks_.baseAlloc() && !hooks_.alloc->ready(s)) {  // the baseline is always ready
    ++stats_->regalloc_stalls;
    return hooks_.alloc->waitStall(s);
  }
  // The gate is asked only about the instructions it flagged (IssueGate::flags).
  if (hooks_.gate && (timingOf(ws, d), ws.gated) && !hooks_.gate->mayIssue(s, *d, now)) {
    ++stats_->gate_stalls;
    return hooks_.gate->refusal();
  }
  if (barriers_) {
    const Stall dep = deps_.stall(s, st, ws.local, d, now);
    if (dep != Stall::None) return dep;
  } else if (sb_.hazardOf(s, d->reads.data(), d->nreads, d->writes.data(), d->nwrites)) {
    return Stall::Scoreboard;
  }
  if (!opc_->canAllocate(timingOf(ws, d).unit)) return Stall::CollectorFull;
  return Stall::None;
}

void Sm::issue(uint64_t now) {
  const uint32_t n = cfg_.sm.num_schedulers;
  if (limit_.on()) refreshWarpLimit();
  for (uint32_t i = 0; i < n; ++i) {
    WarpScheduler& sch = *scheds_[i];
    for (uint32_t s : sch.warps()) {
      wstatus_[s].stall = limit_.allows(s) ? warpStall(s, now) : Stall::NoWarp;
      wstatus_[s].long_latency = sb_.pendingLongLatency(s) > 0;
      wstatus_[s].role = slots_[s].role;
    }
    if (trace_slot_ >= 0)
      for (uint32_t s : sch.warps())
        if (wstatus_[s].stall != Stall::None) RFSIM_SM_TRACE_EV(s, "stall {}", stallName(wstatus_[s].stall));
    const Pick p = sch.cycle(wstatus_.data(), now);
    if (tracing_ && i < trace_sample_.sched.size()) {
      SmTrace::Sched& ts = trace_sample_.sched[i];
      ts.warp = p.warp < 0 ? -1 : p.warp;
      ts.stall = static_cast<uint32_t>(p.warp < 0 ? p.stall : Stall::None);
      if (p.warp >= 0 && traps_.active(static_cast<uint32_t>(p.warp))) {
        ts.pc = 0;
        ts.op = static_cast<uint32_t>(ptx::Op::St);
        ts.unit = static_cast<uint32_t>(UnitType::LDST);
      } else if (p.warp >= 0) {
        WarpSlot& ws = slots_[static_cast<uint32_t>(p.warp)];
        const func::BlockStepper& st = *blocks_[ws.block]->stepper;
        const func::DInstr* d = st.peek(ws.local);
        ts.pc = st.peekPc(ws.local);
        ts.op = static_cast<uint32_t>(d->in->op);
        ts.unit = static_cast<uint32_t>(timingOf(ws, d).unit);
      }
    }
    if (p.warp < 0) {
      quiet_stall_[i] = p.stall;
      ++stats_->stall_cycles[i * size_t(Stall::Count_) + size_t(p.stall)];
      if (p.stall == Stall::CollectorFull) ++stats_->collector_full;
      continue;
    }
    ++stats_->stall_cycles[i * size_t(Stall::Count_) + size_t(Stall::None)];
    ++stats_->issued_cycles;
    const uint32_t w = static_cast<uint32_t>(p.warp);
    if (traps_.active(w)) {
      issueTrap(w, now);
      continue;
    }
    if (!cfg_.pipeline.dual_issue) {
      issueFrom(w, now);
      continue;
    }
    const func::DInstr* first = blocks_[slots_[w].block]->stepper->peek(slots_[w].local);
    const UnitType first_unit = timingOf(slots_[w], first).unit;
    issueFrom(w, now);
    const bool held = slots_[w].gated && hooks_.gate->holdsPair(*first);
    // Dual issue (pipeline.dual_issue, GPGPU-Sim's dual_issue_diff_exec_units):
    // the same warp's next instruction in the same cycle, when it is ready
    // (the scoreboard sees the first one's destinations) and goes to another
    // unit type.
    // Not after an instruction the issue gate flagged and holds
    // (IssueGate::holdsPair): a mechanism's state it changes (a rename
    // unit's frame pointers) takes effect at the end of the cycle, after
    // which the next instruction must be renamed.
    if (!traps_.active(w) && !held && warpStall(w, now) == Stall::None) {
      WarpSlot& ws = slots_[w];
      if (timingOf(ws, blocks_[ws.block]->stepper->peek(ws.local)).unit != first_unit) {
        ++stats_->dual_issues;
        issueFrom(w, now);
      }
    }
  }
}

// Warp w's next instruction; while an observer elides what issued (free:
// the scheduler's slot is still unused), the warp's next one when it is
// ready, at most kMaxElided a cycle (the I-buffer bounds it first).
void Sm::issueFrom(uint32_t w, uint64_t now) {
  constexpr unsigned kMaxElided = 8;
  for (unsigned k = 0; k < kMaxElided && issueWarp(w, now); ++k)
    if (traps_.active(w) || warpStall(w, now) != Stall::None) return;
}

}  // namespace rfsim::sm
