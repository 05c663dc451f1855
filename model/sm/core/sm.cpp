#include "sm/core/sm.h"

#include <algorithm>
#include <array>
#include <tuple>
#include <cstdlib>

#include <fmt/format.h>

#include "common/error.h"
#include "sm/core/sm_internal.h"
#include "sm/issue/shared_banks.h"

namespace rfsim::sm {

namespace {

bool isControl(func::Cls c) {
  using func::Cls;
  return c == Cls::Bra || c == Cls::Call || c == Cls::Ret || c == Cls::Exit || c == Cls::Trap ||
         c == Cls::Brkpt || c == Cls::Bar;
}

// Register ids that go through the banked register file (general and
// extension-class registers; predicates do not).
unsigned bankRegs(const uint16_t* in, unsigned n, uint16_t* out, unsigned max) {
  unsigned k = 0;
  for (unsigned i = 0; i < n && k < max; ++i)
    if (ptx::mach::isRowReg(in[i])) out[k++] = in[i];
  return k;
}

}  // namespace

Sm::Sm(const config::GpuConfig& cfg, func::Program& program, const func::LaunchSetup& setup,
       rt::LaunchStats& launch_stats, uint32_t regs_per_thread, stats::Group* stats_parent,
       const std::string& name, MemoryInterface* mem)
    : cfg_(cfg), program_(program), setup_(setup), launch_stats_(launch_stats),
      regs_per_thread_(regs_per_thread),
      stats_(std::make_unique<SmStats>(stats_parent, name, cfg.sm.num_schedulers, cfg.regfile.num_banks)),
      fetch_(cfg, stats_->fetch), sb_(cfg.sm.max_warps), deps_(cfg.sm.max_warps, program, sb_, stats_->issue),
      exec_(cfg), regs_(program, cfg.sm.max_warps), limit_(cfg.sm.warp_limit), traps_(cfg.sm.max_warps) {
  config::KernelFootprint fp;
  fp.threads_per_block = static_cast<uint32_t>(setup.block.count());
  fp.regs_per_thread = regs_per_thread;
  fp.shared_per_block = setup.static_shared + setup.dynamic_shared;
  occ_ = config::computeOccupancy(cfg, fp, setup.kernel && setup.kernel->fn ? setup.kernel->fn->name : "kernel");
  if (mem) {
    mem_ = mem;
  } else {
    own_mem_ = std::make_unique<FixedLatencyMemory>(cfg.pipeline.mem_latency);
    mem_ = own_mem_.get();
  }
  slots_.resize(cfg.sm.max_warps);
  wstatus_.resize(cfg.sm.max_warps);
  barriers_ = cfg.sm.dependency == config::Dependency::Barriers;
  if (barriers_) {
    if (!program.module().machine)
      throw Error("sm.dependency barriers: the kernel runs as PTX over virtual registers, which has no control "
                  "codes; run the machine program (without --virtual-regs) or use sm.dependency scoreboard");
  }

  OperandCollectorConfig& oc = oc_cfg_;
  oc.num_banks = cfg.regfile.num_banks;
  oc.sub_cores = cfg.regfile.sub_cores;
  oc.read_ports_per_bank = cfg.regfile.read_ports_per_bank;
  oc.write_ports_per_bank = cfg.regfile.write_ports_per_bank;
  oc.bank_latency = cfg.regfile.bank_latency;
  oc.bank_swizzle = cfg.pipeline.bank_swizzle ? 1 : 0;
  oc.num_warps = cfg.sm.max_warps;
  if (cfg.pipeline.collector_mode == config::CollectorMode::PerUnit) {
    oc.general_collectors = 0;
    for (auto& u : oc.unit_collectors) u = cfg.pipeline.num_collectors;
  } else {
    oc.general_collectors = cfg.pipeline.num_collectors;
  }
  opc_ = std::make_unique<OperandCollector>(oc);

  SchedulerParams sp;
  sp.max_warps = cfg.sm.max_warps;
  sp.active_warps = std::max(1u, cfg.sm.active_warps / cfg.sm.num_schedulers);
  sp.ready_first = cfg.sm.activate == config::Activate::OldestReady;
  sp.barrier_demotes = cfg.sm.barrier_demotes;
  long_wait_miss_ = cfg.sm.long_wait == config::LongWait::L1dMiss;
  sp.dual_issue = false;  // dual issue is not modelled yet
  const SchedulerRegistry reg = SchedulerRegistry::withBuiltins();
  for (uint32_t i = 0; i < cfg.sm.num_schedulers; ++i) scheds_.push_back(reg.create(config::choiceName(cfg.sm.scheduler), sp));
  quiet_stall_.assign(cfg.sm.num_schedulers, Stall::None);

  stats_->max_warps = cfg.sm.max_warps;
}

Sm::~Sm() = default;

void Sm::limitBlocks(uint32_t blocks) {
  if (resident_blocks_ || stats_->blocks_launched.get())
    throw Error("Sm::limitBlocks: only before the first block is launched");
  if (blocks == 0) throw Error("Sm::limitBlocks: an SM must admit at least one block");
  occ_.blocks = blocks;
  occ_.warps = blocks * occ_.warps_per_block;
}

bool Sm::canLaunch() const {
  if (resident_blocks_ >= occ_.blocks) return false;
  if (cfg_.sm.max_warps - resident_warps_ < occ_.warps_per_block) return false;
  return hooks_.alloc->canLaunch(occ_.warps_per_block, regs_per_thread_);
}

void Sm::launch(rt::Dim3 ctaid) {
  if (!canLaunch()) throw Error("Sm::launch: no room for another block");
  auto b = std::make_unique<Block>();
  b->stepper = std::make_unique<func::BlockStepper>(program_, setup_, launch_stats_, ctaid);
  int32_t id;
  if (!free_block_ids_.empty()) {
    id = free_block_ids_.back();
    free_block_ids_.pop_back();
  } else {
    id = static_cast<int32_t>(blocks_.size());
    blocks_.emplace_back();
  }
  const uint32_t nw = b->stepper->numWarps();
  // Registers first (extension point (c)): a refusal leaves the SM unchanged.
  std::vector<uint32_t> slots, bases;
  for (uint32_t w = 0, s = 0; w < nw; ++w, ++s) {
    while (slots_[s].used) ++s;
    uint32_t base = 0;
    if (!hooks_.alloc->allocate(static_cast<uint32_t>(id), s, w, regs_per_thread_, base)) {
      for (uint32_t t : slots) hooks_.alloc->release(t);
      free_block_ids_.push_back(id);
      throw Error(fmt::format("Sm::launch: the register allocator refused warp {} of the block after canLaunch", w));
    }
    slots.push_back(s);
    bases.push_back(base);
  }
  for (uint32_t w = 0; w < nw; ++w) {
    const uint32_t s = slots[w];
    WarpSlot& ws = slots_[s];
    ws = WarpSlot{};
    ws.used = true;
    ws.block = id;
    ws.local = w;
    b->slots.push_back(s);
    fetch_.reset(s);
    sb_.clear(s);
    if (barriers_) deps_.launched(s);
    opc_->baseTranslator().setBase(s, bases[w]);
    if (regs_.on()) {
      regs_.launched(s);
      regs_.bind(s, b->stepper->warpState(w));
    }
    if (hooks_.launch) {
      ws.role = hooks_.launch->onWarpLaunch(s, b->stepper->ctaid(), w);
      const uint32_t pc = hooks_.launch->startPc(s, *b->stepper, w);
      if (pc != kEntryPc) b->stepper->setStartPc(w, pc);
    }
    ws.age = age_;
    scheds_[schedulerOf(s, cfg_.sm.num_schedulers)]->addWarp(s, age_++);
  }
  if (limit_.on()) updateWarpLimit();
  b->live = nw;
  resident_warps_ += nw;
  ++resident_blocks_;
  blocks_[id] = std::move(b);
  ++stats_->blocks_launched;
  stats_->max_resident_blocks.sampleMax(resident_blocks_);
}

uint32_t Sm::allocInflight() {
  ++inflight_count_;
  if (!free_inflight_.empty()) {
    const uint32_t t = free_inflight_.back();
    free_inflight_.pop_back();
    return t;
  }
  inflight_.emplace_back();
  return static_cast<uint32_t>(inflight_.size() - 1);
}

// Issued instructions (the program's and traps'), retired blocks: what
// makes a tick not quiet and feeds the watchdog.
uint64_t Sm::progressCount() const {
  return stats_->warp_instrs.get() + stats_->issue.trap_ops.get() + stats_->blocks_retired.get();
}

void Sm::tick(uint64_t now) {
  now_ = now;
  if (quiet_ && now > last_tick_ + 1) accountSkipped(now - last_tick_ - 1, now);
  ++stats_->cycles;
  if (resident_warps_) {
    ++stats_->active_cycles;
    stats_->resident_warps_sum += resident_warps_;
  }
  const uint64_t before = progressCount();
  const uint64_t done_before = wb_done_;
  const uint64_t fetches_before = stats_->l1i_hits.get() + stats_->l1i_misses.get();
  const uint32_t warps_before = resident_warps_;
  tracing_ = trace_ && trace_->inWindow();
  if (tracing_) traceBegin();
  // The pipeline in reverse order (docs/sm.md "Pipeline"), so that each
  // stage sees what the next one left in their latch last cycle.
  writeback(now);    // write-back queue -> register-file write ports, scoreboard released
  execute(now);      // ExecStage -> write-back queue
  dispatch(now);     // OperandCollector ready -> ExecStage
  opc_->cycle(now);  // operand collection: bank arbitration
  issue(now);        // schedulers: FetchStage I-buffers -> OperandCollector
  fetch(now);        // FetchStage: L1I -> I-buffers
  opc_->endCycle(now);
  if (tracing_) traceEnd();
  else if (trace_) trace_->skip();
  last_tick_ = now;
  // A hook that can say when its decisions next change leaves skipping on.
  quiet_ = !trace_ && (hooks_.baseAlloc() || hooks_.alloc->nextEventCycle(now) > now) &&
           (!hooks_.gate || hooks_.gate->nextEventCycle(now) > now) && opc_->skippable(now) &&
           progressCount() == before && wb_done_ == done_before &&
           stats_->l1i_hits.get() + stats_->l1i_misses.get() == fetches_before && resident_warps_ == warps_before &&
           wb_queue_.empty() && opc_->idle();
  if (progressCount() != before || wb_done_ != done_before ||
      resident_warps_ == 0) {
    last_progress_ = now;
  } else if (now - last_progress_ >= cfg_.pipeline.watchdog_cycles) {
    throw Error(fmt::format("SM deadlock: no instruction issued or completed for {} cycles (cycle {})\n{}",
                            now - last_progress_, now, dumpState()));
  }
  checkRunaway(now);
}

// A kernel that never ends issues all the same: a warp spinning on a flag
// nobody sets. Stores, atomics, barrier arrivals and exits are what a
// kernel that ends makes; an SM whose warps issue without any of them for
// pipeline.livelock_cycles is stopped, as is a launch past sim.max_cycles.
void Sm::checkRunaway(uint64_t now) {
  const uint64_t moved = moves_ + stats_->blocks_retired.get();
  if (moved != last_moves_ || resident_warps_ == 0) {
    last_moves_ = moved;
    last_move_cycle_ = now;
  } else if (now - last_move_cycle_ >= cfg_.pipeline.livelock_cycles) {
    throw Error(fmt::format("kernel {}: stopped as a runaway kernel, livelock on {}: warps issued for {} cycles "
                            "(cycle {}) but none stored, updated memory atomically, arrived at a barrier or exited "
                            "(pipeline.livelock_cycles {}); its warps:\n{}",
                            kernelName(), stats_->name(), now - last_move_cycle_, now, cfg_.pipeline.livelock_cycles,
                            dumpState()));
  }
  if (now >= cfg_.sim.max_cycles)
    throw Error(fmt::format("kernel {}: stopped as a runaway kernel at cycle {} on {}: the launch reached "
                            "sim.max_cycles ({}; raise it with --max-cycles if the kernel is meant to run that long); "
                            "its warps:\n{}",
                            kernelName(), now, stats_->name(), cfg_.sim.max_cycles, dumpState()));
}

std::string Sm::kernelName() const {
  return setup_.kernel && setup_.kernel->fn ? setup_.kernel->fn->name : std::string("?");
}

void Sm::writeback(uint64_t now) {
  const size_t n = wb_queue_.size();
  for (size_t i = 0; i < n; ++i) {
    const uint32_t tag = wb_queue_.front();
    wb_queue_.pop_front();
    Inflight& f = inflight_[tag];
    if (f.writes) {
      uint16_t regs[16];
      const unsigned k = bankRegs(f.d->writes.data(), f.d->nwrites, regs, 16);
      if (f.written < k) {
        f.written = static_cast<uint8_t>(f.written + opc_->requestWrites(f.slot, regs + f.written, k - f.written,
                                                                       f.rows_known ? f.wrow.data() + f.written : nullptr));
        if (f.written < k) {
          ++stats_->writeback_retries;
          RFSIM_SM_TRACE_EV(f.slot, "writeback refused (write port) tag {} pc {} ({} of {} written)", tag, f.pc,
                            f.written, k);
          wb_queue_.push_back(tag);
          continue;
        }
      }
      uint32_t w32[16];
      for (unsigned j = 0; j < f.d->nwrites; ++j) w32[j] = f.d->writes[j];
      if (!f.trap || f.trap->op.row == TrapOp::kNoRow)  // a trap's row was not in the scoreboard
        sb_.release(f.slot, w32, f.d->nwrites, f.long_latency);
    }
    if (f.wbar) deps_.written(f.slot, f.wbar, *f.d, f.writes);
    RFSIM_SM_TRACE_EV(f.slot, "writeback tag {} pc {} {} (scoreboard released)", tag, f.pc, ptx::opName(f.d->in->op));
    ++wb_done_;
    WarpSlot& ws = slots_[f.slot];
    --ws.inflight;
    if (f.mem) --ws.mem_pending;
    if (f.trap) traps_.done(f.slot, *f.trap, now);
    free_inflight_.push_back(tag);
    --inflight_count_;
    maybeFreeSlot(f.slot);
  }
}

void Sm::execute(uint64_t now) {
  exec_.cycle(now, [&](uint64_t tag) {
    RFSIM_SM_TRACE_EV(inflight_[tag].slot, "done tag {} pc {}", tag, inflight_[tag].pc);
    wb_queue_.push_back(static_cast<uint32_t>(tag));
  });
}

void Sm::dispatch(uint64_t now) {
  if (!opc_->hasReady()) return;
  for (unsigned u = 0; u < kNumUnitTypes; ++u) {
    const UnitType ut = static_cast<UnitType>(u);
    uint64_t tag;
    while (opc_->peekReady(ut, tag)) {
      // An instruction for the scalar pipeline collects its operands as any
      // (they are in the vector registers) and executes there.
      ExecUnit& eu = exec_.unit(u, inflight_[tag].scalar);
      if (!eu.canAccept(now)) {
        RFSIM_SM_TRACE_EV(inflight_[tag].slot, "ready, unit {} busy: tag {} pc {}", u, tag, inflight_[tag].pc);
        ++stats_->unit_busy;
        break;
      }
      opc_->popReady(ut, tag);
      const Inflight& f = inflight_[tag];
      if (f.rbar) deps_.read(f.slot, f.rbar);
      eu.accept(tag, now, f.exec_latency, f.ii);
      RFSIM_SM_TRACE_EV(f.slot, "dispatch tag {} pc {} unit {} (operands read) exec {} ii {}", tag, f.pc, u,
                        f.exec_latency, f.ii);
    }
  }
}

bool Sm::issueWarp(uint32_t s, uint64_t now) {
  WarpSlot& ws = slots_[s];
  func::BlockStepper& st = *blocks_[ws.block]->stepper;
  const func::DInstr* d = st.peek(ws.local);
  const OpTiming t = timingOf(ws, d);
  func::StepInfo info;
  st.setClock(now);  // %clock64 reads the SM cycle at issue
  // Physical registers: every register is translated once, here at issue,
  // and the instruction executes on those rows (phys_regs.h).
  std::array<uint32_t, std::tuple_size_v<decltype(d->reads)>> rrows;
  std::array<uint32_t, 16> wrows;
  const bool phys = regs_.on();
  if (phys) regs_.map(s, st, ws.local, *d, st.peekPc(ws.local), opc_->translator(), rrows.data(), wrows.data());
  if (!hooks_.observers.empty())
    for (InstrObserver* o : hooks_.observers)
      o->before(s, st, ws.local, *d, st.warpState(ws.local), program_.machineColumns());
  st.step(ws.local, info);
  bool elided = false, scalar = false;
  if (!hooks_.observers.empty()) {
    for (InstrObserver* o : hooks_.observers) {
      o->after(s, *d, info, st.warpState(ws.local), program_.machineColumns());
      elided = elided || o->elided();
    }
    if (!elided)
      for (InstrObserver* o : hooks_.observers) scalar = scalar || o->scalar();
  }
  if (phys) regs_.unmap(s, *d, info.active, opc_->translator());
  if (ws.gated) hooks_.gate->issued(s, *d, info, now);
  if (elided) {
    // Executed and free (InstrObserver::elided): fetched, nothing more; not
    // a warp instruction issued (the observer counts it).
    fetch_.pop(s);
    fetch_.afterIssue(s, st, ws.local, info);
    return true;
  }
  ++stats_->warp_instrs;
  if (d->cls == func::Cls::St || d->cls == func::Cls::Atom || d->cls == func::Cls::Red || d->cls == func::Cls::Bar ||
      d->cls == func::Cls::Exit || info.exited)
    ++moves_;
  ++stats_->warp_instrs_by_role[std::min(ws.role, kMaxWarpRoles - 1)];
  const auto lanes = static_cast<uint64_t>(__builtin_popcount(info.active));
  stats_->thread_instrs += lanes;
  ++stats_->warp_instrs_by_unit[size_t(t.op_unit)];
  stats_->thread_instrs_by_unit[size_t(t.op_unit)] += scalar ? 1 : lanes;
  if (info.divergent) ++stats_->divergent_branches;
  if (!hooks_.events.empty() && (info.callee != UINT32_MAX || info.ret || info.frames_released)) {
    for (SmEventHook* h : hooks_.events) {
      if (info.callee != UINT32_MAX) h->onCall(s, *d, info.callee, info.call_depth, now);
      if (info.ret && !info.exited) h->onReturn(s, *d, info.call_depth, now);
      if (info.frames_released) h->onFrameRelease(s, info.frames_released, info.call_depth, now);
    }
  }
  fetch_.pop(s);

  uint64_t latency = t.latency;
  bool long_latency = false, mem = false;
  if (info.is_mem && info.mem.mask) {
    if (info.mem.space == ptx::Space::Shared) {
      const uint32_t bytes = uint32_t(info.mem.bytes) * info.mem.elems;
      const uint32_t deg = std::max(1u, sharedConflictDegree(info.mem.addr.data(), info.mem.mask,
                                                             std::min(bytes, 16u), cfg_.shared.num_banks));
      latency = cfg_.shared.latency + (deg - 1);
      ++stats_->shared_accesses;
      stats_->shared_passes += deg;
      stats_->shared_extra_passes += deg - 1;
    } else if (t.lat == LatClass::Const) {
      // ld.param / ld.const: a constant-bank operand in SASS, not a trip to
      // the memory system: the class latency (pipeline.const_latency) stands.
      ++stats_->const_accesses;
    } else {
      latency = mem_->accessLatency(info.mem, s, now);
      mem = true;
      ++stats_->mem_accesses;
      const ptx::Space sp = info.mem.space;
      // sm.long_wait: any global/local load, or one that missed the L1D.
      long_latency = !info.mem.write && (sp == ptx::Space::Global || sp == ptx::Space::Local ||
                                         sp == ptx::Space::Generic) &&
                     (!long_wait_miss_ || mem_->lastMissed());
    }
  }
  const bool control = isControl(d->cls);
  const uint32_t tag = allocInflight();
  Inflight& f = inflight_[tag];
  f.slot = s;
  f.pc = info.pc;
  f.d = d;
  f.unit = t.unit;
  f.exec_latency = static_cast<uint32_t>(std::max<uint64_t>(1, latency > kStageOverhead ? latency - kStageOverhead : 1));
  f.ii = t.ii;
  f.writes = !control && d->nwrites > 0;
  f.long_latency = long_latency && f.writes;
  f.mem = mem;
  f.scalar = scalar;
  f.written = 0;
  f.trap = nullptr;  // the slot may have held a trap operation
  f.rows_known = phys;
  if (phys) f.wrow = wrows;
  f.wbar = f.rbar = 0;
  if (barriers_) std::tie(f.wbar, f.rbar) = deps_.issued(s, *d, f.writes, now);
  ++ws.inflight;
  if (mem) ++ws.mem_pending;
  if (f.writes) {
    uint32_t w[16];
    for (unsigned i = 0; i < d->nwrites; ++i) w[i] = d->writes[i];
    sb_.reserve(s, w, d->nwrites, f.long_latency);
  }
  uint16_t regs[kMaxSrcOperands];
  const unsigned nr = bankRegs(d->reads.data(), d->nreads, regs, kMaxSrcOperands);
  if (static_cast<int64_t>(s) == trace_slot_) {
    std::string rs, ws;
    for (unsigned i = 0; i < nr; ++i) rs += fmt::format("{}R{}/b{}", i ? " " : "", regs[i], opc_->bankOf(s, regs[i]));
    for (unsigned i = 0; i < d->nwrites; ++i) ws += fmt::format("{}{}", i ? " " : "", d->writes[i]);
    RFSIM_SM_TRACE_EV(s, "issue tag {} pc {} {} latency {} reads [{}] writes [{}] role {}", tag, info.pc,
                      ptx::opName(d->in->op), latency, rs, ws, slots_[s].role);
  }
  if (!opc_->allocate(s, t.unit, regs, nr, tag, phys ? rrows.data() : nullptr))
    throw Error("Sm::issueWarp: collector allocation failed after canAllocate");

  fetch_.afterIssue(s, st, ws.local, info);
  return false;
}

void Sm::maybeFreeSlot(uint32_t s) {
  WarpSlot& ws = slots_[s];
  if (!ws.used || ws.inflight || traps_.active(s)) return;
  Block& b = *blocks_[ws.block];
  if (b.stepper->status(ws.local) != func::WarpStatus::Done) return;
  scheds_[schedulerOf(s, cfg_.sm.num_schedulers)]->removeWarp(s);
  sb_.clear(s);
  if (barriers_) deps_.freed(s);
  hooks_.alloc->release(s);
  if (hooks_.launch) hooks_.launch->onWarpExit(s);
  const int32_t id = ws.block;
  ws = WarpSlot{};
  fetch_.reset(s);
  if (limit_.on()) updateWarpLimit();
  --resident_warps_;
  if (--b.live == 0) {
    const rt::Dim3 c = b.stepper->ctaid();
    blocks_[id].reset();
    free_block_ids_.push_back(id);
    --resident_blocks_;
    ++stats_->blocks_retired;
    ++finished_since_poll_;
    if (on_retired_) on_retired_(c);
    for (SmEventHook* h : hooks_.events) h->onBlockRetired(c, now_);
  }
}

void Sm::fetch(uint64_t now) {
  // The fetch stage's view of the warp slots.
  struct Warps {
    Sm& sm;
    func::BlockStepper* stepper(uint32_t s, uint32_t& local) {
      const WarpSlot& ws = sm.slots_[s];
      if (!ws.used) return nullptr;
      local = ws.local;
      return sm.blocks_[ws.block]->stepper.get();
    }
    void finished(uint32_t s) { sm.maybeFreeSlot(s); }
  } warps{*this};
  fetch_.cycle(now, warps);
}

}  // namespace rfsim::sm
