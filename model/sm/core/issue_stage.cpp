// The issue stage (issue_stage.h): each scheduler's view of its warps (why
// a warp cannot issue this cycle), the pick, dual issue, the instructions an
// observer elides (InstrObserver::elided: free, the warp's next one may
// issue in the same cycle), the static warp limit (warp_limit.h) and traps
// (trap_queue.h: spills and fills a mechanism injects before a warp's next
// instruction, issued and timed here as real local memory operations).
#include "sm/core/issue_stage.h"

#include <algorithm>
#include <array>
#include <string>
#include <tuple>

#include <fmt/format.h>

#include "common/error.h"
#include "sm/core/sm_internal.h"
#include "sm/issue/shared_banks.h"

namespace rfsim::sm {

namespace {

// What ptxas can put on the FMA pipe as IMAD.IADD or IMAD.MOV: a 32-bit
// integer add, subtract or move (pipeline.int_add_on_fma).
bool fmaCapable(const ptx::Instr& in) {
  using ptx::Op;
  using ptx::Type;
  if (in.op != Op::Add && in.op != Op::Sub && in.op != Op::Mov) return false;
  return in.type == Type::S32 || in.type == Type::U32 || in.type == Type::B32;
}

bool isControl(func::Cls c) {
  using func::Cls;
  return c == Cls::Bra || c == Cls::Call || c == Cls::Ret || c == Cls::Exit || c == Cls::Trap ||
         c == Cls::Brkpt || c == Cls::Bar;
}

}  // namespace

IssueStage::IssueStage(const config::GpuConfig& cfg, const Links& links)
    : cfg_(cfg), l_(links), barriers_(cfg.sm.dependency == config::Dependency::Barriers),
      long_wait_miss_(cfg.sm.long_wait == config::LongWait::L1dMiss), wstatus_(cfg.sm.max_warps),
      sb_wait_(cfg.sm.max_warps, 0), sb_long_at_(cfg.sm.max_warps, 0), sb_long_(cfg.sm.max_warps, 0),
      two_level_(cfg.sm.scheduler == config::SchedulerPolicy::TwoLevel), int_fma_(cfg.pipeline.int_add_on_fma),
      timed_(cfg.sm.max_warps), ready_(cfg.sm.max_warps, nullptr), clear_at_(cfg.sm.max_warps, 0),
      bar_at_(cfg.sm.max_warps, 0),
      limit_(cfg.sm.warp_limit) {
  SchedulerParams sp;
  sp.max_warps = cfg.sm.max_warps;
  sp.active_warps = std::max(1u, cfg.sm.active_warps / cfg.sm.num_schedulers);
  sp.ready_first = cfg.sm.activate == config::Activate::OldestReady;
  sp.barrier_demotes = cfg.sm.barrier_demotes;
  sp.dual_issue = false;  // dual issue is not modelled yet
  const SchedulerRegistry reg = SchedulerRegistry::withBuiltins();
  for (uint32_t i = 0; i < cfg.sm.num_schedulers; ++i)
    scheds_.push_back(reg.create(config::choiceName(cfg.sm.scheduler), sp));
  last_stall_.assign(cfg.sm.num_schedulers, Stall::None);
}

void IssueStage::addWarp(uint32_t s, uint64_t age) {
  wstatus_[s].role = l_.warps[s].role;  // the launch hook's tag, set before and fixed while the warp lives
  timed_[s] = Timed{};
  ready_[s] = nullptr;
  clear_at_[s] = 0;
  bar_at_[s] = 0;
  scheds_[schedulerOf(s, numSchedulers())]->addWarp(s, age);
}

void IssueStage::removeWarp(uint32_t s) {
  scheds_[schedulerOf(s, numSchedulers())]->removeWarp(s);
  timed_[s] = Timed{};
  ready_[s] = nullptr;
  clear_at_[s] = 0;
  bar_at_[s] = 0;
}

uint64_t IssueStage::nextRelease(uint64_t now) const {
  uint64_t next = UINT64_MAX;
  for (const auto& sch : scheds_) next = std::min(next, sch->nextRelease(now));
  return next;
}

void IssueStage::accountSkipped(uint64_t k) {
  for (uint32_t i = 0; i < last_stall_.size(); ++i) {
    l_.stats.stall_cycles[i * size_t(Stall::Count_) + size_t(last_stall_[i])] += k;
    if (last_stall_[i] == Stall::CollectorFull) l_.stats.collector_full += k;
    scheds_[i]->addStallCycles(last_stall_[i], k);
  }
}

uint64_t IssueStage::activations() const {
  uint64_t n = 0;
  for (const auto& sch : scheds_) n += sch->activations();
  return n;
}

uint64_t IssueStage::deactivations() const {
  uint64_t n = 0;
  for (const auto& sch : scheds_) n += sch->deactivations();
  return n;
}

void IssueStage::retime(Timed& t, const func::DInstr* d) {
  t.timing = opTiming(*d->in, cfg_);
  t.gated = l_.hooks.gate && l_.hooks.gate->flags(*d);
  t.asked = t.gated && l_.hooks.gate->mayRefuse(*d);
  t.d = d;
}

bool IssueStage::hookStall(uint32_t s, const func::DInstr* d, bool asked, uint64_t now, Stall& out) {
  if (!l_.hooks.baseAlloc() && !l_.hooks.alloc->ready(s)) {
    ++l_.stats.regalloc_stalls;
    out = l_.hooks.alloc->waitStall(s);
    return true;
  }
  if (l_.hooks.gate && asked && !l_.hooks.gate->mayIssue(s, *d, now)) {
    ++l_.stats.gate_stalls;
    out = l_.hooks.gate->refusal();
    return true;
  }
  return false;
}

Stall IssueStage::warpStallFull(uint32_t s, uint64_t now) {
  WarpSlot& ws = l_.warps[s];
  if (l_.traps.active(s)) return trapStall(s);  // the trap's operations go first
  // Waiting on the scoreboard with nothing it holds changed since: still
  // waiting (its next instruction stays until it issues, and so do its
  // status and its I-buffer entry; a fill that arrives meanwhile the fetch
  // stage takes itself, FetchStage::cycle). A mechanism's allocation and
  // gate, which come before the scoreboard, are asked again as below (their
  // answers may change while the warp waits), the gate about the
  // instruction timed_ holds (timingOf() was called with it before the
  // hazard was found).
  if (!barriers_ && sb_wait_[s] == uint64_t{l_.sb.version(s)} + 1) {
    if (!l_.hooks.baseAlloc() && !l_.hooks.alloc->ready(s)) {
      ++l_.stats.regalloc_stalls;
      return l_.hooks.alloc->waitStall(s);
    }
    if (l_.hooks.gate && timed_[s].asked && !l_.hooks.gate->mayIssue(s, *timed_[s].d, now)) {
      ++l_.stats.gate_stalls;
      return l_.hooks.gate->refusal();
    }
    return Stall::Scoreboard;
  }
  func::BlockStepper& st = l_.warps.stepper(ws);
  const func::DInstr* d = ready_[s];
  if (!d) {
    const func::WarpStatus fs = st.status(ws.local);
    if (fs == func::WarpStatus::Done) return Stall::NoWarp;
    if (fs == func::WarpStatus::AtBarrier) {
      bar_at_[s] = st.blockEvents() + 1;
      return Stall::Barrier;
    }
    if (!l_.fetch.hasInstr(s, now)) return Stall::IbufferEmpty;
    d = ready_[s] = st.peek(ws.local);
  }
  if (!l_.hooks.baseAlloc() && !l_.hooks.alloc->ready(s)) {  // the baseline is always ready
    ++l_.stats.regalloc_stalls;
    return l_.hooks.alloc->waitStall(s);
  }
  // The gate is asked only about the instructions it flagged and may refuse
  // (IssueGate::flags, mayRefuse).
  if (l_.hooks.gate && (timingOf(s, d), timed_[s].asked) && !l_.hooks.gate->mayIssue(s, *d, now)) {
    ++l_.stats.gate_stalls;
    return l_.hooks.gate->refusal();
  }
  if (barriers_) {
    const Stall dep = l_.deps.stall(s, st, ws.local, d, now);
    if (dep != Stall::None) return dep;
    // Free of scoreboard hazards until the warp's next reservation, as below
    // (fastBarrierStall; the stall count and the barriers are asked first).
    clear_at_[s] = uint64_t{l_.sb.reserveVersion(s)} + 1;
  } else {
    // No hazard found for this instruction holds until the warp's next
    // reservation (a release only removes hazards).
    const uint64_t v = uint64_t{l_.sb.reserveVersion(s)} + 1;
    if (clear_at_[s] != v) {
      if (l_.sb.hazardOf(s, d->reads.data(), d->nreads, d->writes.data(), d->nwrites)) {
        sb_wait_[s] = uint64_t{l_.sb.version(s)} + 1;
        return Stall::Scoreboard;
      }
      clear_at_[s] = v;
    }
  }
  if (!opc_->canAllocate(timingOf(s, d).unit, s)) return Stall::CollectorFull;
  return Stall::None;
}

// A warp waits on a long-latency operation when its next instruction
// depends on one: the two-level scheduler keeps a small active set "to hide
// ALU and local memory access latency" and a pending set "to hide main
// memory latency" (Gebhart et al. ISCA 2011, abstract; GPGPU-Sim's
// two_level_active demotes on the same test), so a warp that waits on a
// short result while one of its loads is outstanding for a later
// instruction stays active. A trap's operations wait for its own fills.
// A warp whose next instructions come from the L2 (an L1I miss) waits on
// the memory hierarchy as a load that missed the L1D does, "a long latency
// operation, such as a data cache miss" (Sadrosadati et al., Section 3):
// cycle() counts that wait as long too (FetchStage::waitsOnL2).
bool IssueStage::waitsLong(uint32_t s) const {
  if (l_.traps.active(s)) return l_.sb.pendingLongLatency(s) > 0;
  const WarpSlot& ws = l_.warps[s];
  const func::DInstr* d = l_.warps.stepper(ws).peek(ws.local);
  return l_.sb.longHazardOf(s, d->reads.data(), d->nreads, d->writes.data(), d->nwrites);
}

// waitsLong() of a warp whose scoreboard wait warpStall() remembered, once
// per scoreboard version.
bool IssueStage::waitsLongCached(uint32_t s) {
  const uint64_t v = uint64_t{l_.sb.version(s)} + 1;
  if (sb_wait_[s] != v || l_.traps.active(s)) return waitsLong(s);
  if (sb_long_at_[s] != v) {
    sb_long_at_[s] = v;
    sb_long_[s] = waitsLong(s);
  }
  return sb_long_[s];
}

void IssueStage::cycle(uint64_t now, SmTrace::Sched* trace, size_t ntrace) {
  const uint32_t n = cfg_.sm.num_schedulers;
  if (limit_.on()) refreshWarpLimit();
  const ScanFn scan = scanFor(stallPath());
  for (uint32_t i = 0; i < n; ++i) {
    WarpScheduler& sch = *scheds_[i];
    const uint32_t seen = (this->*scan)(sch, now);  // the stalls found, one bit each (WarpScheduler::cycle)
    if (trace_slot_ >= 0)
      for (uint32_t s : sch.warps())
        if (wstatus_[s].stall != Stall::None) RFSIM_SM_TRACE_EV(s, "stall {}", stallName(wstatus_[s].stall));
    const Pick p = sch.cycle(wstatus_.data(), now, seen);
    if (trace && i < ntrace) {
      SmTrace::Sched& ts = trace[i];
      ts.warp = p.warp < 0 ? -1 : p.warp;
      ts.stall = static_cast<uint32_t>(p.warp < 0 ? p.stall : Stall::None);
      if (p.warp >= 0 && l_.traps.active(static_cast<uint32_t>(p.warp))) {
        ts.pc = 0;
        ts.op = static_cast<uint32_t>(ptx::Op::St);
        ts.unit = static_cast<uint32_t>(UnitType::LDST);
      } else if (p.warp >= 0) {
        const uint32_t w = static_cast<uint32_t>(p.warp);
        const WarpSlot& ws = l_.warps[w];
        const func::BlockStepper& st = l_.warps.stepper(ws);
        const func::DInstr* d = st.peek(ws.local);
        ts.pc = st.peekPc(ws.local);
        ts.op = static_cast<uint32_t>(d->in->op);
        ts.unit = static_cast<uint32_t>(timingOf(w, d).unit);
      }
    }
    if (p.warp < 0) {
      last_stall_[i] = p.stall;
      ++l_.stats.stall_cycles[i * size_t(Stall::Count_) + size_t(p.stall)];
      if (p.stall == Stall::CollectorFull) ++l_.stats.collector_full;
      continue;
    }
    ++l_.stats.stall_cycles[i * size_t(Stall::Count_) + size_t(Stall::None)];
    ++l_.stats.issued_cycles;
    const uint32_t w = static_cast<uint32_t>(p.warp);
    if (l_.traps.active(w)) {
      issueTrap(w, now);
      continue;
    }
    if (!cfg_.pipeline.dual_issue) {
      issueFrom(w, now);
      continue;
    }
    // The instruction the stall answer None found (ready_), without walking
    // the warp's stacks again (their cache misses were 6 % of the host's time
    // on RegDem's GTX Titan X).
    const func::DInstr* first = ready_[w] ? ready_[w] : l_.warps.stepper(l_.warps[w]).peek(l_.warps[w].local);
    const UnitType first_unit = timingOf(w, first).unit;
    issueFrom(w, now);
    const bool held = timed_[w].gated && l_.hooks.gate->holdsPair(*first);
    // Dual issue (pipeline.dual_issue, GPGPU-Sim's dual_issue_diff_exec_units):
    // the same warp's next instruction in the same cycle, when it is ready
    // (the scoreboard sees the first one's destinations) and goes to another
    // unit type.
    // Not after an instruction the issue gate flagged and holds
    // (IssueGate::holdsPair): a mechanism's state it changes (a rename
    // unit's frame pointers) takes effect at the end of the cycle, after
    // which the next instruction must be renamed.
    if (!l_.traps.active(w) && !held && warpStall(w, now) == Stall::None) {
      if (timingOf(w, ready_[w]).unit != first_unit) {  // None: ready_ holds the next instruction
        ++l_.stats.dual_issues;
        issueFrom(w, now);
      }
    }
  }
}

template <IssueStage::StallPath P, bool kTwoLevel, bool kLimit>
uint32_t IssueStage::scanWarps(const WarpScheduler& sch, uint64_t now) {
  uint32_t seen = 0;
  for (uint32_t s : sch.warps()) {
    const Stall stall = !kLimit || limit_.allows(s) ? stallAt<P>(s, now) : Stall::NoWarp;
    seen |= uint32_t{1} << static_cast<unsigned>(stall);
    wstatus_[s].stall = stall;
    // Only the two-level policy asks whether a wait is long (the others'
    // long_latency stays false, as constructed).
    if constexpr (kTwoLevel)
      wstatus_[s].long_latency = (stall == Stall::Scoreboard && waitsLongCached(s)) ||
                                 (stall == Stall::IbufferEmpty && l_.fetch.waitsOnL2(s, now));
  }
  return seen;
}

IssueStage::ScanFn IssueStage::scanFor(StallPath path) const {
  // [path][two-level][limit], the paths in StallPath's order.
  static_assert(static_cast<int>(StallPath::Hooks) == 0 && static_cast<int>(StallPath::Plain) == 1 &&
                static_cast<int>(StallPath::BarriersHooks) == 2 && static_cast<int>(StallPath::BarriersPlain) == 3);
  static constexpr ScanFn kScans[4][2][2] = {
      {{&IssueStage::scanWarps<StallPath::Hooks, false, false>, &IssueStage::scanWarps<StallPath::Hooks, false, true>},
       {&IssueStage::scanWarps<StallPath::Hooks, true, false>, &IssueStage::scanWarps<StallPath::Hooks, true, true>}},
      {{&IssueStage::scanWarps<StallPath::Plain, false, false>, &IssueStage::scanWarps<StallPath::Plain, false, true>},
       {&IssueStage::scanWarps<StallPath::Plain, true, false>, &IssueStage::scanWarps<StallPath::Plain, true, true>}},
      {{&IssueStage::scanWarps<StallPath::BarriersHooks, false, false>,
        &IssueStage::scanWarps<StallPath::BarriersHooks, false, true>},
       {&IssueStage::scanWarps<StallPath::BarriersHooks, true, false>,
        &IssueStage::scanWarps<StallPath::BarriersHooks, true, true>}},
      {{&IssueStage::scanWarps<StallPath::BarriersPlain, false, false>,
        &IssueStage::scanWarps<StallPath::BarriersPlain, false, true>},
       {&IssueStage::scanWarps<StallPath::BarriersPlain, true, false>,
        &IssueStage::scanWarps<StallPath::BarriersPlain, true, true>}}};
  return kScans[static_cast<size_t>(path)][two_level_ ? 1 : 0][limit_.on() ? 1 : 0];
}

// Warp w's next instruction; while an observer elides what issued (free:
// the scheduler's slot is still unused), the warp's next one when it is
// ready, at most kMaxElided a cycle (the I-buffer bounds it first).
void IssueStage::issueFrom(uint32_t w, uint64_t now) {
  constexpr unsigned kMaxElided = 8;
  for (unsigned k = 0; k < kMaxElided && issueWarp(w, now); ++k)
    if (l_.traps.active(w) || warpStall(w, now) != Stall::None) return;
}
bool IssueStage::issueWarp(uint32_t s, uint64_t now) {
  WarpSlot& ws = l_.warps[s];
  func::BlockStepper& st = l_.warps.stepper(ws);
  const func::DInstr* d = ready_[s] ? ready_[s] : st.peek(ws.local);  // ready_: what peek() gives
  ready_[s] = nullptr;  // its status, next instruction and I-buffer change
  clear_at_[s] = 0;
  const OpTiming t = timingOf(s, d);
  func::StepInfo info;
  st.setClock(now);  // %clock64 reads the SM cycle at issue
  // Physical registers: every register is translated once, here at issue,
  // and the instruction executes on those rows (phys_regs.h).
  std::array<uint32_t, std::tuple_size_v<decltype(d->reads)>> rrows;
  std::array<uint32_t, 16> wrows;
  const bool phys = l_.regs.on();
  if (phys) l_.regs.map(s, st, ws.local, *d, st.peekPc(ws.local), opc_->translator(), rrows.data(), wrows.data());
  if (!l_.hooks.observers.empty())
    for (InstrObserver* o : l_.hooks.observers)
      o->before(s, st, ws.local, *d, st.warpState(ws.local), l_.program.machineColumns());
  st.step(ws.local, info);
  bool elided = false, scalar = false;
  uint32_t added_latency = 0;  // InstrObserver::addedLatency
  if (!l_.hooks.observers.empty()) {
    for (InstrObserver* o : l_.hooks.observers) {
      o->after(s, *d, info, st.warpState(ws.local), l_.program.machineColumns());
      elided = elided || o->elided();
    }
    if (!elided)
      for (InstrObserver* o : l_.hooks.observers) {
        scalar = scalar || o->scalar();
        added_latency += o->addedLatency();
      }
  }
  if (phys) l_.regs.unmap(s, *d, info.active, opc_->translator());
  if (timed_[s].gated) l_.hooks.gate->issued(s, *d, info, now);
  if (elided) {
    // Executed and free (InstrObserver::elided): fetched, nothing more; not
    // a warp instruction issued (the observer counts it).
    l_.fetch.pop(s);
    l_.fetch.afterIssue(s, st, ws.local, info, now);
    return true;
  }
  ++l_.stats.warp_instrs;
  if (d->cls == func::Cls::St || d->cls == func::Cls::Atom || d->cls == func::Cls::Red || d->cls == func::Cls::Bar ||
      d->cls == func::Cls::Exit || info.exited)
    ++moves_;
  ++l_.stats.warp_instrs_by_role[std::min(ws.role, kMaxWarpRoles - 1)];
  // A full warp without the count (the build targets baseline x86-64, where
  // __builtin_popcount is a call: 0.3 % of sgemm's host instructions).
  const uint64_t lanes = info.active == 0xffffffffu ? 32 : static_cast<uint64_t>(__builtin_popcount(info.active));
  l_.stats.thread_instrs += lanes;
  ++l_.stats.warp_instrs_by_unit[size_t(t.op_unit)];
  l_.stats.thread_instrs_by_unit[size_t(t.op_unit)] += scalar ? 1 : lanes;
  if (info.divergent) ++l_.stats.divergent_branches;
  if (!l_.hooks.events.empty() && (info.callee != UINT32_MAX || info.ret || info.frames_released)) {
    for (SmEventHook* h : l_.hooks.events) {
      if (info.callee != UINT32_MAX) h->onCall(s, *d, info.callee, info.call_depth, now);
      if (info.ret && !info.exited) h->onReturn(s, *d, info.call_depth, now);
      if (info.frames_released) h->onFrameRelease(s, info.frames_released, info.call_depth, now);
    }
  }
  l_.fetch.pop(s);

  uint64_t latency = t.latency;
  uint64_t pending = Inflight::kNoPending;
  uint32_t ii = t.ii;
  bool long_latency = false, mem = false;
  if (info.is_mem && info.mem.mask) {
    if (info.mem.space == ptx::Space::Shared) {
      const uint32_t bytes = uint32_t(info.mem.bytes) * info.mem.elems;
      const uint32_t deg = std::max(1u, sharedConflictDegree(info.mem.addr.data(), info.mem.mask,
                                                             std::min(bytes, 16u), cfg_.shared.num_banks));
      // The passes are serial and all hold the LD/ST unit. The phases a wide
      // access needs at any rate (2 for 8 bytes a lane, 4 for 16: 128 bytes
      // a cycle) take a cycle each; each pass a bank conflict adds takes
      // shared.pass_cycles.
      const uint32_t phases = sharedPhases(info.mem.mask, std::min(bytes, 16u));
      const uint32_t extra = deg > phases ? deg - phases : 0;
      latency = cfg_.shared.latency + (phases - 1) + uint64_t{extra} * cfg_.shared.pass_cycles;
      ii = std::max(ii, phases + extra * cfg_.shared.pass_cycles);
      ++l_.stats.shared_accesses;
      l_.stats.shared_passes += deg;
      l_.stats.shared_extra_passes += deg - 1;
    } else if (t.lat == LatClass::Const) {
      // ld.param / ld.const: a constant-bank operand in SASS, not a trip to
      // the memory system: the class latency (pipeline.const_latency) stands.
      ++l_.stats.const_accesses;
    } else {
      latency = l_.mem.accessLatency(info.mem, s, now);
      pending = l_.mem.lastPending();
      mem = true;
      ++l_.stats.mem_accesses;
      const ptx::Space sp = info.mem.space;
      // sm.long_wait: any global/local load, or one that missed the L1D.
      long_latency = !info.mem.write && (sp == ptx::Space::Global || sp == ptx::Space::Local ||
                                         sp == ptx::Space::Generic) &&
                     (!long_wait_miss_ || l_.mem.lastMissed());
    }
  }
  latency += added_latency;
  const bool control = isControl(d->cls);
  const uint32_t tag = l_.inflight.alloc();
  Inflight& f = l_.inflight[tag];
  f.slot = s;
  f.pc = info.pc;
  f.d = d;
  f.unit = t.unit;
  f.exec_latency = execLatency(latency, kStageOverhead);
  f.exec_latency += l_.hooks.issue_latency;  // a mechanism's stage ahead of the collector (SmHooks)
  f.pending_access = pending;
  f.pending_extra = added_latency;
  f.dispatched_at = Inflight::kNotDispatched;
  f.ii = ii;
  f.writes = !control && d->nwrites > 0;
  f.long_latency = long_latency && f.writes;
  f.mem = mem;
  f.scalar = scalar;
  f.fma_ok = int_fma_ && t.unit == UnitType::INT && t.lat == LatClass::IntAdd && fmaCapable(*d->in);
  f.written = 0;
  f.trap = nullptr;  // the slot may have held a trap operation
  f.rows_known = phys;
  if (phys) f.wrow = wrows;
  f.wbar = f.rbar = 0;
  if (barriers_) std::tie(f.wbar, f.rbar) = l_.deps.issued(s, *d, f.writes, now);
  ++ws.inflight;
  if (mem) ++ws.mem_pending;
  if (f.writes) {
    uint32_t w[16];
    for (unsigned i = 0; i < d->nwrites; ++i) w[i] = d->writes[i];
    l_.sb.reserve(s, w, d->nwrites, f.long_latency);
  }
  uint16_t regs[kMaxSrcOperands];
  const unsigned nr = bankRegs(d->reads.data(), d->nreads, regs, kMaxSrcOperands);
  if (static_cast<int64_t>(s) == trace_slot_) {
    std::string rs, ws;
    for (unsigned i = 0; i < nr; ++i) rs += fmt::format("{}R{}/b{}", i ? " " : "", regs[i], opc_->bankOf(s, regs[i]));
    for (unsigned i = 0; i < d->nwrites; ++i) ws += fmt::format("{}{}", i ? " " : "", d->writes[i]);
    RFSIM_SM_TRACE_EV(s, "issue tag {} pc {} {} latency {} reads [{}] writes [{}] role {}", tag, info.pc,
                      ptx::opName(d->in->op), latency, rs, ws, l_.warps[s].role);
  }
  if (!opc_->allocate(s, t.unit, regs, nr, tag, phys ? rrows.data() : nullptr, d->reuse))
    throw Error("IssueStage::issueWarp: collector allocation failed after canAllocate");

  l_.fetch.afterIssue(s, st, ws.local, info, now);
  return false;
}

void IssueStage::warpsChanged() {
  if (!limit_.on()) return;
  limit_.reorder(l_.warps.size(), [this](uint32_t s, uint64_t& age) {
    age = l_.warps[s].age;
    return l_.warps[s].used;
  });
}

void IssueStage::refreshWarpLimit() {
  limit_.refresh([this](uint32_t s) {
    const WarpSlot& ws = l_.warps[s];
    return ws.used && !l_.traps.active(s) && l_.warps.blockLive(ws.block) &&
           l_.warps.stepper(ws).status(ws.local) == func::WarpStatus::AtBarrier;
  });
}

Stall IssueStage::trapStall(uint32_t s) {
  if (l_.traps.allIssued(s)) {  // all issued: wait for the last to complete
    ++l_.stats.issue.trap_wait_cycles;
    return Stall::Scoreboard;
  }
  const TrapQueue::Entry& e = l_.traps.peek(s);
  const func::DInstr& d = e.d;
  if (e.op.row != TrapOp::kNoRow) {
    if (l_.warps[s].inflight > l_.traps.inflight(s)) return Stall::Scoreboard;  // the warp's own instructions drain first
  } else if (l_.sb.hazardOf(s, d.reads.data(), d.nreads, d.writes.data(), d.nwrites)) {
    return Stall::Scoreboard;
  }
  if (!opc_->canAllocate(UnitType::LDST, s)) return Stall::CollectorFull;
  return Stall::None;
}

void IssueStage::issueTrap(uint32_t s, uint64_t now) {
  WarpSlot& ws = l_.warps[s];
  const TrapQueue::Entry& e = l_.traps.pop(s);
  ++l_.stats.issue.trap_ops;
  const OpTiming tm = opTiming(e.in, cfg_);
  // A whole register-file row: all 32 lanes, whatever the warp's mask.
  func::MemAccess a;
  a.space = ptx::Space::Local;
  a.write = e.op.store;
  a.bytes = 4;
  a.mask = 0xffffffffu;
  a.addr.fill(e.op.offset);
  const uint64_t latency = l_.mem.accessLatency(a, s, now);
  ++l_.stats.mem_accesses;
  if (e.op.store) ++l_.stats.ldst.trap_stores; else ++l_.stats.ldst.trap_loads;
  const uint32_t tag = l_.inflight.alloc();
  Inflight& f = l_.inflight[tag];
  f.slot = s;
  f.pc = 0;
  f.d = &e.d;
  f.unit = tm.unit;
  f.exec_latency = execLatency(latency, kStageOverhead);
  f.exec_latency += l_.hooks.issue_latency;
  f.pending_access = l_.mem.lastPending();
  f.pending_extra = 0;
  f.dispatched_at = Inflight::kNotDispatched;
  f.ii = tm.ii;
  f.writes = !e.op.store;
  f.long_latency = !e.op.store;
  f.mem = true;
  f.written = 0;
  f.trap = &e;
  f.wbar = f.rbar = 0;  // a trap's operations are ordered by the trap, not by barriers
  ++ws.inflight;
  ++ws.mem_pending;
  const bool by_row = e.op.row != TrapOp::kNoRow;
  if (by_row) {
    if (l_.regs.on() && e.op.row >= l_.regs.count())
      throw Error(fmt::format("Sm::trap: warp slot {}: row {} outside the register file's {} rows", s, e.op.row,
                              l_.regs.count()));
    f.rows_known = true;
    f.wrow[0] = e.op.row;
  } else if (f.writes) {
    const uint32_t w = e.op.reg;
    l_.sb.reserve(s, &w, 1, true);
  }
  RFSIM_SM_TRACE_EV(s, "trap {} R{} offset {} tag {} latency {}", e.op.store ? "spill" : "fill", e.op.reg,
                    e.op.offset, tag, latency);
  if (!opc_->allocate(s, tm.unit, e.d.reads.data(), e.d.nreads, tag, by_row ? &e.op.row : nullptr))
    throw Error("IssueStage::issueTrap: collector allocation failed after canAllocate");
}

}  // namespace rfsim::sm
