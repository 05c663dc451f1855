#include "sm/core/sm.h"

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

#include "common/error.h"
#include "sm/core/sm_internal.h"

namespace rfsim::sm {

namespace {

// The fetch stage's code layout: each function's instruction count.
std::vector<uint32_t> funcInstrs(const func::Program& program) {
  std::vector<uint32_t> n;
  for (const func::DFunction& f : program.functions()) n.push_back(static_cast<uint32_t>(f.code.size()));
  return n;
}

}  // namespace

Sm::Sm(const config::GpuConfig& cfg, func::Program& program, const func::LaunchSetup& setup,
       rt::LaunchStats& launch_stats, uint32_t regs_per_thread, stats::Group* stats_parent,
       const std::string& name, MemoryInterface* mem)
    : cfg_(cfg), program_(program), setup_(setup), launch_stats_(launch_stats),
      regs_per_thread_(regs_per_thread),
      own_mem_(mem ? nullptr : std::make_unique<FixedLatencyMemory>(cfg.pipeline.mem_latency)),
      mem_(mem ? mem : own_mem_.get()), warps_(cfg.sm.max_warps),
      stats_(std::make_unique<SmStats>(stats_parent, name, cfg.sm.num_schedulers, cfg.regfile.num_banks)),
      fetch_(cfg, stats_->fetch, funcInstrs(program)), sb_(cfg.sm.max_warps),
      deps_(cfg.sm.max_warps, program, sb_, stats_->issue),
      barriers_(cfg.sm.dependency == config::Dependency::Barriers), traps_(cfg.sm.max_warps),
      regs_(program, cfg.sm.max_warps),
      issue_(cfg, IssueStage::Links{program, warps_, fetch_, sb_, deps_, traps_, regs_, inflight_, hooks_, *mem_,
                                    *stats_}),
      exec_(cfg), wb_(inflight_, sb_, deps_, *stats_) {
  config::KernelFootprint fp;
  fp.threads_per_block = static_cast<uint32_t>(setup.block.count());
  fp.regs_per_thread = regs_per_thread;
  fp.shared_per_block = setup.static_shared + setup.dynamic_shared;
  occ_ = config::computeOccupancy(cfg, fp, setup.kernel && setup.kernel->fn ? setup.kernel->fn->name : "kernel");
  if (barriers_) {
    if (!program.module().machine)
      throw Error("sm.dependency barriers: the kernel runs as PTX over virtual registers, which has no control "
                  "codes; run the machine program (without --virtual-regs) or use sm.dependency scoreboard");
  }

  OperandCollectorConfig& oc = oc_cfg_;
  oc.num_banks = cfg.regfile.num_banks;
  // With sub-cores, each has its own banks; without, regfile.sub_cores may
  // still split them by scheduler quadrant (config_validate).
  oc.sub_cores = cfg.sm.sub_cores > 1 ? cfg.sm.sub_cores : cfg.regfile.sub_cores;
  oc.collector_groups = cfg.sm.sub_cores;
  oc.reuse_caches = cfg.regfile.operand_reuse ? cfg.sm.num_schedulers : 0;
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
  bindCollector();
  stats_->max_warps = cfg.sm.max_warps;
}

Sm::~Sm() = default;

void Sm::bindCollector() {
  issue_.setCollector(*opc_);
  wb_.setCollector(*opc_);
}

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
  auto b = std::make_unique<ResidentBlock>();
  b->stepper = std::make_unique<func::BlockStepper>(program_, setup_, launch_stats_, ctaid);
  if (log_) b->stepper->setLog(log_);
  if (writes_) b->stepper->countWritesIn(writes_);
  if (proofs_armed_) b->stepper->armProofs(true);
  const int32_t id = warps_.reserveBlock();
  const uint32_t nw = b->stepper->numWarps();
  // Registers first (extension point (c)): a refusal leaves the SM unchanged.
  std::vector<uint32_t> slots, bases;
  for (uint32_t w = 0, s = 0; w < nw; ++w, ++s) {
    while (warps_[s].used) ++s;
    uint32_t base = 0;
    if (!hooks_.alloc->allocate(static_cast<uint32_t>(id), s, w, regs_per_thread_, base)) {
      for (uint32_t t : slots) hooks_.alloc->release(t);
      warps_.unreserveBlock(id);
      throw Error(fmt::format("Sm::launch: the register allocator refused warp {} of the block after canLaunch", w));
    }
    slots.push_back(s);
    bases.push_back(base);
  }
  for (uint32_t w = 0; w < nw; ++w) {
    const uint32_t s = slots[w];
    WarpSlot& ws = warps_[s];
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
    issue_.addWarp(s, age_++);
  }
  issue_.warpsChanged();
  b->live = nw;
  resident_warps_ += nw;
  ++resident_blocks_;
  warps_.placeBlock(id, std::move(b));
  ++stats_->blocks_launched;
  stats_->max_resident_blocks.sampleMax(resident_blocks_);
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
  ++stats_->ticks;
  if (resident_warps_) {
    ++stats_->active_cycles;
    stats_->resident_warps_sum += resident_warps_;
  }
  const uint64_t before = progressCount();
  const uint64_t done_before = wb_.retired();
  const uint64_t fetches_before = fetch_.fills();
  const uint32_t warps_before = resident_warps_;
  const uint64_t pool_before = issue_.poolMoves();
  tracing_ = trace_ && trace_->inWindow();
  if (tracing_) traceBegin();
  // The pipeline in reverse order (docs/sm.md "Pipeline"), so that each
  // stage sees what the one before it left in their latch last cycle.
  // write-back: the write-back queue -> register-file write ports; the
  // scoreboard released, the instruction retired
  wb_.cycle(now, [&](uint32_t tag, const Inflight& f) { retire(tag, f, now); });
  // execute: ExecStage's finished instructions -> the write-back queue
  exec_.cycle(now, [&](uint64_t tag) {
    RFSIM_SM_TRACE_EV(inflight_[tag].slot, "done tag {} pc {}", tag, inflight_[tag].pc);
    wb_.push(static_cast<uint32_t>(tag));
  });
  // dispatch: the OperandCollector's ready instructions -> ExecStage
  dispatch(now);
  // operand collection: bank arbitration
  opc_->cycle(now);
  // issue: FetchStage's I-buffers -> IssueStage -> OperandCollector
  issue_.cycle(now, tracing_ ? trace_sample_.sched.data() : nullptr, trace_sample_.sched.size());
  // fetch: the L1I -> FetchStage's I-buffers
  fetch(now);
  opc_->endCycle(now);
  if (tracing_) traceEnd();
  else if (trace_) trace_->skip();
  last_tick_ = now;
  // A hook that can say when its decisions next change leaves skipping on.
  // A warp entering or leaving a two-level pool changes what a mechanism
  // answers for it next cycle (LTRF's gate refuses a warp outside the pool)
  // without an event of its own: such a tick is not quiet. The hooks (const,
  // a mechanism's scan of its warps) are asked last, only when everything
  // else says quiet.
  quiet_ = !trace_ && progressCount() == before && wb_.retired() == done_before &&
           fetch_.fills() == fetches_before && resident_warps_ == warps_before &&
           issue_.poolMoves() == pool_before &&
           wb_.empty() && opc_->idle() && opc_->skippable(now) &&
           (hooks_.baseAlloc() || hooks_.alloc->nextEventCycle(now) > now) &&
           (!hooks_.gate || hooks_.gate->nextEventCycle(now) > now);
  if (progressCount() != before || wb_.retired() != done_before ||
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
void Sm::armProofs(bool on) {
  proofs_armed_ = on;
  warps_.forEachBlock([on](ResidentBlock& b) { b.stepper->armProofs(on); });
}

void Sm::checkRunaway(uint64_t now) {
  // The livelock proof: armed after pipeline.livelock_proof_cycles without
  // a visible write anywhere on the GPU (not with physical register rows,
  // where a warp's registers live in the SM's file instead of its state).
  const uint64_t dev = dev_writes_ ? *dev_writes_ : program_.memory().writes();
  cycling_at_ = UINT64_MAX;
  if (dev != dev_seen_) {
    dev_seen_ = dev;
    dev_quiet_since_ = now;
    if (proofs_armed_) armProofs(false);
  } else if (!proofs_armed_ && !regs_.on() && now - dev_quiet_since_ >= cfg_.pipeline.livelock_proof_cycles) {
    armProofs(true);
  }
  if (proofs_armed_ && resident_blocks_ > 0) {
    bool all = true;
    warps_.forEachBlock([&all](const ResidentBlock& b) { all = all && b.stepper->allCycling(); });
    if (all) cycling_at_ = dev;
  }
  const uint64_t moved = issue_.moves() + stats_->blocks_retired.get();
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

void Sm::retire(uint32_t tag, const Inflight& f, uint64_t now) {
  const uint32_t s = f.slot;
  WarpSlot& ws = warps_[s];
  --ws.inflight;
  if (f.mem) --ws.mem_pending;
  if (f.trap) traps_.done(s, *f.trap, now);
  inflight_.free(tag);
  maybeFreeSlot(s);
}

void Sm::dispatch(uint64_t now) {
  if (!opc_->hasReady()) return;
  const unsigned groups = exec_.subCores();
  for (unsigned u = 0; u < kNumUnitTypes; ++u) {
    const UnitType ut = static_cast<UnitType>(u);
    if (!opc_->hasReady(ut)) continue;
    // Each sub-core's collectors feed its own units (exec_stage.h); the
    // shared LD/ST unit takes the oldest ready of all sub-cores.
    const bool shared = ut == UnitType::LDST || groups == 1;
    for (unsigned g = 0; g < (shared ? 1u : groups); ++g) {
      const unsigned from = shared ? OperandCollector::kAnyGroup : g;
      uint64_t tag;
      while (opc_->peekReady(ut, tag, from)) {
        // An instruction for the scalar pipeline collects its operands as any
        // (they are in the vector registers) and executes there.
        const Inflight& f = inflight_[tag];
        const unsigned group = groups == 1 ? 0 : f.slot % groups;
        ExecUnit* eu = &exec_.unit(u, f.scalar, group);
        if (!eu->canAccept(now) && f.fma_ok) {
          // pipeline.int_add_on_fma: the FP32 unit, if this cycle's FP32
          // instructions (dispatched first) left it free.
          ExecUnit& fma = exec_.unit(static_cast<unsigned>(UnitType::SP), f.scalar, group);
          if (fma.canAccept(now)) {
            eu = &fma;
            ++stats_->int_on_fma;
          }
        }
        if (!eu->canAccept(now)) {
          RFSIM_SM_TRACE_EV(f.slot, "ready, unit {} busy: tag {} pc {}", u, tag, f.pc);
          ++stats_->unit_busy;
          break;
        }
        opc_->popReady(ut, tag, from);
        if (f.rbar) deps_.read(f.slot, f.rbar);
        const bool pending = f.pending_access != Inflight::kNoPending;
        eu->accept(tag, now, pending ? ExecUnit::kUnknownLatency : f.exec_latency, f.ii);
        inflight_[tag].dispatched_at = now;
        RFSIM_SM_TRACE_EV(f.slot, "dispatch tag {} pc {} unit {} (operands read) exec {} ii {}", tag, f.pc, u,
                          f.exec_latency, f.ii);
      }
    }
  }
}

void Sm::resolveMemory() {
  resolved_.clear();
  mem_->resolve(resolved_);
  if (resolved_.empty()) return;
  const unsigned groups = exec_.subCores();
  size_t found = 0;
  for (uint32_t tag = 0; tag < inflight_.size(); ++tag) {
    Inflight& f = inflight_[tag];
    if (f.pending_access == Inflight::kNoPending) continue;
    // In the order the accesses were made, so by id.
    const auto it = std::lower_bound(resolved_.begin(), resolved_.end(), f.pending_access,
                                     [](const MemoryInterface::Resolved& r, uint64_t id) { return r.id < id; });
    if (it == resolved_.end() || it->id != f.pending_access)
      throw Error(fmt::format("Sm::resolveMemory: {}: access {} of tag {} was not resolved", stats_->name(),
                              f.pending_access, tag));
    f.exec_latency = execLatency(it->latency + f.pending_extra, kStageOverhead) + hooks_.issue_latency;
    f.pending_access = Inflight::kNoPending;
    if (f.dispatched_at != Inflight::kNotDispatched)
      exec_.unit(static_cast<unsigned>(f.unit), f.scalar, groups == 1 ? 0 : f.slot % groups)
          .resolve(tag, f.dispatched_at + f.exec_latency);
    ++found;
  }
  if (found != resolved_.size())
    throw Error(fmt::format("Sm::resolveMemory: {}: {} accesses resolved, {} instructions waited for one",
                            stats_->name(), resolved_.size(), found));
}

void Sm::endQuantum() {
  resolveMemory();
  quantumEndHooks();
}

void Sm::quantumEndHooks() {
  for (SmEventHook* h : hooks_.events) h->onQuantumEnd();
}

void Sm::maybeFreeSlot(uint32_t s) {
  WarpSlot& ws = warps_[s];
  if (!ws.used || ws.inflight || traps_.active(s)) return;
  ResidentBlock& b = warps_.block(ws.block);
  if (b.stepper->status(ws.local) != func::WarpStatus::Done) return;
  issue_.removeWarp(s);
  sb_.clear(s);
  if (barriers_) deps_.freed(s);
  hooks_.alloc->release(s);
  if (hooks_.launch) hooks_.launch->onWarpExit(s);
  const int32_t id = ws.block;
  ws = WarpSlot{};
  fetch_.reset(s);
  issue_.warpsChanged();
  --resident_warps_;
  if (--b.live == 0) {
    const rt::Dim3 c = b.stepper->ctaid();
    warps_.retireBlock(id);
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
      const WarpSlot& ws = sm.warps_[s];
      if (!ws.used) return nullptr;
      local = ws.local;
      return &sm.warps_.stepper(ws);
    }
    void finished(uint32_t s) { sm.maybeFreeSlot(s); }
  } warps{*this};
  fetch_.cycle(now, warps);
}

void Sm::trap(uint32_t s, const std::vector<TrapOp>& ops, TrapListener* listener) {
  if (!warps_.at(s).used) throw Error(fmt::format("Sm::trap: warp slot {} holds no warp", s));
  traps_.add(s, ops, listener);
}

}  // namespace rfsim::sm
