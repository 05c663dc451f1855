#include "mech/cars/cars_mechanism.h"

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "mech/cars/cars_adaptive.h"
#include "mech/cars/cars_config.h"
#include "mech/cars/cars_cost.h"
#include "mech/cars/cars_passes.h"
#include "mech/cars/cmd_demo.h"
#include "common/error.h"
#include "common/gtkw.h"
#include "common/results_dir.h"
#include "mech/cars/rename_index_path.h"
#include "mech/cars/rename_lockstep.h"
#include "mech/cars/rename_waves.h"
#include "mech/cars/cars_sm.h"
#include "backend/backend.h"
#include "sm/core/sm.h"
#include "sm/core/sm.h"

namespace rfsim::cars {

namespace {

// The rename unit's counters over one launch, summed over the SMs.
struct CarsLaunchStats : stats::Group {
  explicit CarsLaunchStats(stats::Group* parent)
      : Group(parent, "cars", "CARS: rename units (every SM), register stacks, stalled warps"),
        ADD_STAT(cycles, stats::unit::Cycle, "SM cycles the units were clocked (all SMs)"),
        ADD_STAT(renames, stats::unit::Count, "register-file accesses renamed"),
        ADD_STAT(evaluations, stats::unit::Count, "unit evaluations (each compared RTL vs reference with rtl: true)"),
        ADD_STAT(launch_ops, stats::unit::Count, "Launch operations (a warp's Base, frame and stack written)"),
        ADD_STAT(port_overflow_cycles, stats::unit::Cycle, "cycles with more renames than rename ports"),
        ADD_STAT(call_ops, stats::unit::Count, "Call operations (caller RFP saved in the register file)"),
        ADD_STAT(ret_ops, stats::unit::Count, "Ret operations at frame release (caller RFP read back)"),
        ADD_STAT(push_ops, stats::unit::Count, "Push operations (registers pushed instead of the ABI's STL)"),
        ADD_STAT(pop_ops, stats::unit::Count, "Pop operations (instead of the ABI's LDL)"),
        ADD_STAT(pops_deferred, stats::unit::Count, "pops by part of a frame's lanes, left to the frame's Ret"),
        ADD_STAT(port_waits, stats::unit::Count, "warp-cycles a flagged instruction waited for the operation port"),
        ADD_STAT(stalled_warps, stats::unit::Count, "warps that waited in the stalled-warp list for register space"),
        ADD_STAT(granted, stats::unit::Count, "stalled warps given a region by the warp status check"),
        ADD_STAT(list_ops, stats::unit::Count,
                 "clocks of the stalled-warp lists (one operation each: deactivate, remove, warp status check)"),
        ADD_STAT(list_comparisons, stats::unit::Count,
                 "stalled-warp list evaluations compared RTL vs reference (rtl: true)"),
        ADD_STAT(overflow_traps, stats::unit::Count,
                 "calls that ran the stack-overflow trap first (oldest frames spilled to local memory)"),
        ADD_STAT(fill_traps, stats::unit::Count, "returns into a spilled frame (the trap filled it back)"),
        ADD_STAT(trap_spill_bytes, stats::unit::Byte, "bytes the overflow trap stored (128 per warp-register)"),
        ADD_STAT(trap_fill_bytes, stats::unit::Byte, "bytes the fill trap loaded back"),
        ADD_STAT(ctx_switches, stats::unit::Count,
                 "barrier context switches: warps waiting at a barrier that gave their registers to a stalled warp "
                 "of their block (IV-B2)"),
        ADD_STAT(ctx_restores, stats::unit::Count, "switched-out warps given registers again (their values filled back)"),
        ADD_STAT(ctx_cancelled, stats::unit::Count,
                 "context-switch traps whose registers were stored but not needed (the barrier opened meanwhile)"),
        ADD_STAT(ctx_save_bytes, stats::unit::Byte, "bytes context-switch traps stored (128 per warp-register), cancelled ones included"),
        ADD_STAT(ctx_restore_bytes, stats::unit::Byte, "bytes context-switch traps loaded back"),
        ADD_STAT(spill_ops, stats::unit::Count, "Spill operations applied (the unit's free count takes spilled frames back)"),
        ADD_STAT(fill_ops, stats::unit::Count, "Fill operations applied"),
        ADD_STAT(regs_per_warp, stats::unit::Count,
                 "registers per warp: the kernel's frame plus its stack (adaptive: the best level's)"),
        ADD_STAT(stack_regs, stats::unit::Count, "registers of each warp's in-register stack at that level"),
        ADD_STAT(max_resident_warps, stats::unit::Count, "most warps holding registers at once on an SM"),
        ADD_STAT(adaptive, stats::unit::Count, "1: the adaptive state machine chose the levels (Fig. 5)"),
        ADD_STAT(levels, stats::unit::Count, "allocation levels the state machine could choose"),
        ADD_STAT(level_low_regs, stats::unit::Count, "registers per warp at the lowest level"),
        ADD_STAT(level_high_regs, stats::unit::Count, "registers per warp at the highest level"),
        ADD_STAT(epochs, stats::unit::Count, "finished blocks measured (one sample of their level each)"),
        ADD_STAT(level_steps, stats::unit::Count, "level changes of SMs toward a better level"),
        ADD_STAT(started_remembered, stats::unit::Count,
                 "1: every SM started at the best level of the kernel's earlier launches") {
    // Levels and sizes, not counts: a workload's total keeps the largest.
    for (stats::Scalar* x : {&regs_per_warp, &stack_regs, &max_resident_warps, &adaptive, &levels, &level_low_regs,
                             &level_high_regs, &started_remembered})
      x->maxOverTime();
  }
  stats::Scalar cycles, renames, evaluations, launch_ops, port_overflow_cycles, call_ops, ret_ops, push_ops, pop_ops,
      pops_deferred, port_waits, stalled_warps, granted, list_ops, list_comparisons, overflow_traps, fill_traps, trap_spill_bytes,
      trap_fill_bytes, ctx_switches, ctx_restores, ctx_cancelled, ctx_save_bytes, ctx_restore_bytes, spill_ops,
      fill_ops, regs_per_warp, stack_regs, max_resident_warps, adaptive, levels,
      level_low_regs, level_high_regs, epochs, level_steps, started_remembered;
};

// What a launch of one kernel needs, from its compiled "cars" variant.
struct KernelPlan {
  std::string kernel;
  Watermarks wm;
  bool barriers = false;  // the kernel reaches bar.sync (a stalled warp could block its block)
};

// Whether `kernel` or a function it reaches has a barrier.
bool reachesBarrier(const backend::CompiledModule& cm, const std::string& kernel) {
  const backend::FunctionReport* k = cm.find(kernel);
  if (!k) return false;
  std::vector<bool> seen(cm.callgraph.callees.size(), false);
  std::vector<uint32_t> work{k->index};
  seen[k->index] = true;
  while (!work.empty()) {
    const uint32_t f = work.back();
    work.pop_back();
    for (const auto& bb : cm.machine.functions[f].blocks)
      for (const auto& in : bb.instrs)
        if (in.op == ptx::Op::Bar) return true;
    for (uint32_t c : cm.callgraph.callees[f])
      if (!seen[c]) seen[c] = true, work.push_back(c);
  }
  return false;
}

class Cars final : public mech::Mechanism {
 public:
  explicit Cars(const config::GpuConfig& cfg) : cfg_(cfg), c_(carsConfig(cfg)) {}
  std::string name() const override { return "cars"; }

  std::vector<backend::Variant> variants() const override { return {carsVariant()}; }
  // The push/pop code needs the rename unit: a functional-only run keeps
  // the baseline's code (CARS changes no value a kernel computes).
  std::string chooseVariant(const mech::LaunchInfo& info, const mech::VariantTable& compiled) override {
    auto it = compiled.find("cars");
    if (!info.timing || it == compiled.end()) return "";
    KernelPlan p;
    p.kernel = info.kernel;
    p.wm = watermarksOf(*it->second, info.kernel);
    p.barriers = reachesBarrier(*it->second, info.kernel);
    plan_ = p;
    return "cars";
  }

  // Blocks as the other limiters allow (threads, block slots, shared
  // memory) and as the register file holds at the lowest level: CARS limits
  // concurrency at issue above that. The registers per warp: a fixed level,
  // or the adaptive state machine's levels (cars_adaptive.h).
  uint32_t admitBlocks(const mech::LaunchInfo& info, const config::Occupancy& occ) override {
    uint32_t blocks = std::min({occ.blocks_by_shared, occ.blocks_by_warps, occ.blocks_by_slots});
    // The rows the general registers may take: the file less what another
    // mechanism's register classes keep at its top (composition).
    if (info.class_rows >= cfg_.warpRegisters())
      throw Error(fmt::format("CARS, kernel {}: the other mechanisms' register classes take {} of the register "
                              "file's {} rows",
                              info.kernel, info.class_rows, cfg_.warpRegisters()));
    rows_ = cfg_.warpRegisters() - info.class_rows;
    const uint32_t rows = rows_;
    const Watermarks& wm = plan_.wm;
    const uint32_t free_bits = RenameParams::forSm(cfg_.sm.max_warps, rows, 1).free_bits;
    max_stack_ = (1u << free_bits) - 1;
    // Every frame must fit the stack whole (its FRU and the saved RFP) next
    // to the warp's Base region: the overflow trap makes room by spilling
    // older frames, never part of one.
    if (uint64_t{wm.kernel_fru} + wm.max_fru + 1 > rows || wm.max_fru + 1 > max_stack_)
      throw Error(fmt::format(
          "CARS, kernel {}: its Base region ({} registers) and its largest function frame (FRU {} + the saved RFP) "
          "do not fit one warp's share of the register file ({} rows, stacks of at most {} registers); run this "
          "kernel on the baseline (--mech none)",
          info.kernel, wm.kernel_fru, wm.max_fru, rows, max_stack_));
    frame_ = wm.kernel_fru;
    // The block scheduler stays the baseline's (CARS IV-B1: "To avoid
    // modifying the global thread block scheduler, CARS limits concurrency
    // by blocking the execution of warps not allocated registers in the
    // issue scheduler"): it admits a block when its warps' registers fit,
    // at the register count the launch carries: the Low watermark, before
    // the leftover rule, whatever the policy. Warps wait in the stalled-warp list only when the SM's level
    // gives them more than that, so a kernel without calls (low = high)
    // runs the baseline's blocks and never needs the barrier context switch
    // (Fig. 14: only PTA's K1 switches; Table III).
    {
      const uint64_t region = uint64_t{frame_} + stackFor(static_cast<uint32_t>(std::min<uint64_t>(wm.low(), rows)));
      const uint64_t by_regs = std::max<uint64_t>(1, rows / (region * std::max<uint32_t>(1, occ.warps_per_block)));
      blocks = static_cast<uint32_t>(std::min<uint64_t>(blocks, by_regs));
    }
    // The leftover rule (docs/mechanisms.md): the register file split equally
    // over the warps an SM will hold -- those the other limiters allow, and
    // no more than the grid gives each SM (registers no warp could use are
    // not held back).
    const uint64_t grid_share = (info.blocks + cfg_.gpu.num_sms - 1) / cfg_.gpu.num_sms;
    const uint64_t warps = std::max<uint64_t>(1, std::min<uint64_t>(blocks, grid_share) * occ.warps_per_block);
    const auto leftover = c_.leftover ? static_cast<uint32_t>(rows / warps) : 0u;
    const auto low = static_cast<uint32_t>(std::max<uint64_t>(wm.low(), leftover));
    const auto high = static_cast<uint32_t>(std::max<uint64_t>(wm.high(), leftover));
    adaptive_.reset();
    if (c_.allocation == Allocation::Adaptive) {
      const std::vector<uint32_t> levels = adaptiveLevels(low, high);
      if (levels.size() > 1) {
        auto it = history_.find(plan_.kernel);
        adaptive_ = std::make_unique<AdaptiveAllocation>(levels, cfg_.gpu.num_sms, c_.adapt_hysteresis,
                                                         it == history_.end() ? nullptr : &it->second);
      }
      fixed_regs_ = high;  // the leftover reaches high: every warp gets it, nothing to adapt
    } else {
      const uint64_t level = c_.allocation == Allocation::Low     ? wm.low()
                             : c_.allocation == Allocation::Low2x ? 2ull * wm.low()
                             : c_.allocation == Allocation::Low4x ? 4ull * wm.low()
                                                                  : wm.high();
      fixed_regs_ = static_cast<uint32_t>(std::max<uint64_t>(level, leftover));
    }
    return blocks;
  }

  void attachSm(sm::Sm& sm, uint32_t sm_id) override {
    if (sm_id == 0) {
      if (traced_ && !trace_owner_ && !sms_.empty()) trace_owner_ = std::move(sms_.front());
      sms_.clear();
    }
    auto u = std::make_unique<PerSm>();
    const uint32_t regs = adaptive_ ? adaptive_->regsOf(sm_id) : fixed_regs_;
    const bool switching = plan_.barriers && c_.context_switch;
    u->regions = std::make_unique<CarsRegions>(rows_, frame_, stackFor(regs), cfg_.sm.max_warps,
                                               plan_.barriers && !switching, c_.rtl);
    u->regions->list().setClock([&sm] { return sm.currentCycle(); });
    u->path = std::make_unique<RenameIndexPath>(RenameIndexPath::unitFor(cfg_), u->regions.get(), &u->stats_root);
    u->gate = std::make_unique<CarsSm>(sm, sm_id, *u->path, switching ? u->regions.get() : nullptr);
    sm::SmHooks h;
    // The general registers, over a mechanism's register classes (R2D2's),
    // which keep the top class_rows rows: the regions stay below them
    // (admitBlocks).
    h.translator = u->path.get();
    h.registers = sm::SmHooks::Registers::kGeneral;
    h.allocator = u->path.get();
    h.physical_rows = u->path->unit().params().num_regs;
    h.gates = {u->gate.get()};
    h.events = {u->gate.get(), &u->samples};
    // CARS IV-C: "We add an extra pipeline cycle to the issue and operand
    // collector stage to model these additional checks". The issue stage's
    // cycle is pipeline latency on every instruction's result; the
    // collector's keeps the instruction's collector one cycle longer (the
    // rename happens there).
    h.issue_latency = c_.issue_cycles;
    h.stage_delay = c_.opcoll_cycles;
    sm.install(h);
    // The caller's RFP lives in a register of the warp's stack (CARS III-A).
    sm::RegisterRows& rows = sm.registerRows();
    u->path->setRowAccess({[&rows](uint32_t row, uint32_t v) { std::fill_n(rows.row(row), 32, uint64_t{v}); },
                           [&rows](uint32_t row) { return static_cast<uint32_t>(rows.row(row)[0]); }});
    if (adaptive_) {
      // Every finished block samples the level it was launched at (CARS
      // III-B: "After each thread block's execution, CARS records the
      // performance"): the SM's warp instructions per cycle over the block's
      // lifetime (cars_config.h).
      PerSm* ps = u.get();
      ps->blocks.resize(cfg_.sm.max_warps);
      u->regions->setBlockEvents(
          [this, ps, &sm, sm_id](uint32_t b) {
            ps->blocks.at(b) = BlockStart{sm.currentCycle(), sm.stats().warp_instrs.get(), adaptive_->levelOf(sm_id)};
          },
          [this, ps, &sm, sm_id](uint32_t b) {
            const BlockStart& st = ps->blocks.at(b);
            const uint64_t now = sm.currentCycle();
            if (now <= st.cycle) return;
            const double ipc = double(sm.stats().warp_instrs.get() - st.instrs) / double(now - st.cycle);
            if (cfg_.sim.parallel_sms) {  // the state machine is the GPU's: at the quantum's end
              ps->samples.pending.push_back({st.level, ipc});
              return;
            }
            adaptive_->record(sm_id, st.level, ipc);
            ps->regions->setStack(stackFor(adaptive_->regsOf(sm_id)));
          });
      ps->samples.flush = [this, ps, sm_id] {
        if (ps->samples.pending.empty()) return;
        for (const auto& [level, ipc] : ps->samples.pending) adaptive_->record(sm_id, level, ipc);
        ps->samples.pending.clear();
        ps->regions->setStack(stackFor(adaptive_->regsOf(sm_id)));
      };
    }
    if (sm_id == 0 && pending_trace_) startTrace(*u);
    sms_.push_back(std::move(u));
  }

  std::vector<sm::UnitInfo> smUnits(uint32_t) const override {
    return {{"cars_rename", "the CARS rename unit in the register index path (rtl/cars_rename.sv with rtl: true)",
             "mechanisms.cars"},
            {"cars_stalled_warps",
             "the stalled-warp list and warp status check (rtl/cars_stalled_warps.sv with rtl: true)",
             "mechanisms.cars"}};
  }

  std::unique_ptr<stats::Group> endLaunch(stats::Group* parent) override {
    auto g = std::make_unique<CarsLaunchStats>(parent);
    for (const auto& u : sms_) {
      const IndexPathStats& s = u->path->stats();
      g->cycles += s.cycles.get();
      g->renames += s.renames.get();
      g->evaluations += s.evaluations.get();
      g->launch_ops += s.launch_ops.get();
      g->port_overflow_cycles += s.port_overflow_cycles.get();
      g->call_ops += s.call_ops.get();
      g->ret_ops += s.ret_ops.get();
      g->push_ops += s.push_ops.get();
      g->pop_ops += s.pop_ops.get();
      g->granted += s.granted.get();
      g->spill_ops += s.spill_ops.get();
      g->fill_ops += s.fill_ops.get();
      g->pops_deferred += u->gate->stats().pops_deferred;
      g->port_waits += u->gate->stats().port_waits;
      g->stalled_warps += u->regions->stalled_warps;
      const CarsSmStats& gs = u->gate->stats();
      g->overflow_traps += gs.overflow_traps;
      g->fill_traps += gs.fill_traps;
      g->trap_spill_bytes += gs.spilled_regs * 32 * CarsSm::kSlotBytes;
      g->trap_fill_bytes += gs.filled_regs * 32 * CarsSm::kSlotBytes;
      g->ctx_switches += gs.ctx_switches;
      g->ctx_restores += gs.ctx_restores;
      g->ctx_cancelled += gs.ctx_cancelled;
      g->ctx_save_bytes += gs.ctx_saved_regs * 32 * CarsSm::kSlotBytes;
      g->ctx_restore_bytes += gs.ctx_restored_regs * 32 * CarsSm::kSlotBytes;
      if (auto* ls = dynamic_cast<RenameLockstep*>(&u->path->unit())) comparisons_ += ls->comparisons();
      g->list_ops += u->regions->list().clocks();
      g->list_comparisons += u->regions->list().comparisons();
      list_clocks_ += u->regions->list().clocks();
      list_comparisons_ += u->regions->list().comparisons();
      renames_total_ += s.renames.get();
      cycles_total_ += s.cycles.get();
    }
    uint32_t regs = fixed_regs_;
    if (adaptive_) {
      const auto& lv = adaptive_->levels();
      g->adaptive = 1;
      g->levels = lv.size();
      g->level_low_regs = frame_ + stackFor(lv.front().regs);
      g->level_high_regs = frame_ + stackFor(lv.back().regs);
      g->epochs = adaptive_->samples();
      g->level_steps = adaptive_->steps();
      g->started_remembered = adaptive_->remembered();
      // Every level's mean is remembered for the kernel's next launch, whose
      // SMs start at the best (Fig. 5).
      history_[plan_.kernel] = adaptive_->history(std::move(history_[plan_.kernel]));
      const auto b = adaptive_->best();
      regs = b ? lv[*b].regs : adaptive_->regsOf(0);
    }
    g->regs_per_warp = frame_ + stackFor(regs);
    g->stack_regs = stackFor(regs);
    for (const auto& u : sms_)
      g->max_resident_warps = std::max<uint64_t>(g->max_resident_warps.get(), u->regions->max_resident);
    return g;
  }

  // With the RTL in the loop, SM 0's rename unit's waveform beside the
  // SM's, over the same cycles, with a GTKWave view of it.
  std::vector<std::filesystem::path> traceBeside(const std::filesystem::path& sm_vcd, uint64_t first,
                                                 uint64_t last) override {
    if (!c_.rtl) return {};
    std::filesystem::path vcd = sm_vcd;
    vcd.replace_extension(".rename.vcd");
    std::filesystem::path gtkw = vcd;
    gtkw.replace_extension(".gtkw");
    // The stalled-warp list's waveform, on the same SM cycles.
    std::filesystem::path svcd = sm_vcd, sgtkw = sm_vcd;
    svcd.replace_extension(".stalled.vcd");
    sgtkw.replace_extension(".stalled.gtkw");
    trace_ = Trace{vcd, gtkw, svcd, sgtkw, first, last};
    pending_trace_ = true;
    return {vcd, gtkw, svcd, sgtkw};
  }

  std::vector<std::string> endRun() override {
    if (!c_.rtl) return {};
    if (traced_) {
      trace_ls_->rtl().closeTrace();
      if (trace_list_) trace_list_->closeTrace();
    }
    // A mismatch throws where it happens, so a finished run had none.
    return {fmt::format("rename units in the index path (--rtl, every SM): {} cycles, {} renames, {} evaluations "
                        "compared RTL vs reference, 0 mismatches",
                        cycles_total_, renames_total_, comparisons_),
            fmt::format("stalled-warp lists and warp status checks (--rtl, every SM): {} operations, {} evaluations "
                        "compared RTL vs reference, 0 mismatches",
                        list_clocks_, list_comparisons_)};
  }

  bool rtlInLoop() const override { return c_.rtl; }

  // The rename unit's and the stalled-warp list's operations at the energies
  // of their gate-level simulation (cars_config.h, docs/cost.md).
  std::vector<energy::Structure> energyStructures(const stats::Group& g) const override {
    const auto& s = dynamic_cast<const CarsLaunchStats&>(g);
    auto n = [](const stats::Scalar& x) { return static_cast<uint64_t>(x.get()); };
    return {{"rename", n(s.renames), c_.rename_pj, 0.0},
            {"push_pop", n(s.push_ops) + n(s.pop_ops), c_.push_pop_pj, 0.0},
            {"call_ret", n(s.call_ops) + n(s.ret_ops), c_.call_ret_pj, 0.0},
            {"other_ops", n(s.launch_ops) + n(s.spill_ops) + n(s.fill_ops), c_.other_op_pj, 0.0},
            {"stalled_list", n(s.list_ops), c_.list_op_pj, 0.0},
            {"clock", n(s.cycles), c_.clock_pj, c_.static_mw * 1e-3}};
  }

 private:
  // The stack of a warp given `regs` registers: what the frame leaves,
  // within the free counter and the register file.
  uint32_t stackFor(uint32_t regs) const {
    const uint32_t rows = rows_;
    uint32_t stack = std::min(regs > frame_ ? regs - frame_ : 0u, max_stack_);
    if (frame_ + stack > rows) stack = rows > frame_ ? rows - frame_ : 0;
    return stack;
  }

  // A block's arrival on its SM: when, the SM's warp instructions then, and
  // the level its warps were given.
  struct BlockStart {
    uint64_t cycle = 0, instrs = 0;
    uint32_t level = 0;
  };
  // sim.parallel_sms: an SM's finished blocks' samples, recorded in the
  // GPU's state machine at the quantum's end (sm::SmEventHook::onQuantumEnd).
  struct DeferredSamples final : sm::SmEventHook {
    std::vector<std::pair<uint32_t, double>> pending;  // (level, performance)
    std::function<void()> flush;
    void onQuantumEnd() override {
      if (flush) flush();
    }
  };
  struct PerSm {
    stats::Group stats_root{nullptr, "cars"};
    DeferredSamples samples;
    std::vector<BlockStart> blocks;  // per block slot
    std::unique_ptr<CarsRegions> regions;
    std::unique_ptr<RenameIndexPath> path;
    std::unique_ptr<CarsSm> gate;
  };
  struct Trace {
    std::filesystem::path vcd, gtkw, stalled_vcd, stalled_gtkw;
    uint64_t first = 0, last = 0;
  };
  // SM 0's unit of the launch the trace starts in writes the waveform; it
  // is kept past its launch (its RTL owns the file) until the run ends.
  void startTrace(PerSm& u) {
    auto* ls = dynamic_cast<RenameLockstep*>(&u.path->unit());
    if (!ls) return;
    ls->rtl().traceTo(trace_.vcd, trace_.first, trace_.last - trace_.first + 1);  // the window is finite
    writeFileAtomic(trace_.gtkw, gtkwSaveFile(renameWaveView(ls->params(), trace_.vcd.string(), trace_.first)));
    trace_ls_ = ls;
    u.regions->list().traceTo(trace_.stalled_vcd, trace_.stalled_gtkw, trace_.first, trace_.last);
    trace_list_ = &u.regions->list();
    traced_ = true;
    pending_trace_ = false;
  }

  const config::GpuConfig& cfg_;
  CarsConfig c_;
  KernelPlan plan_;
  uint32_t frame_ = 0, fixed_regs_ = 0, max_stack_ = 0, rows_ = 0;
  std::unique_ptr<AdaptiveAllocation> adaptive_;  // this launch's state machine, if it adapts
  std::map<std::string, AdaptiveAllocation::History> history_;  // every level's mean, by kernel name
  std::vector<std::unique_ptr<PerSm>> sms_;
  bool pending_trace_ = false, traced_ = false;
  Trace trace_;
  RenameLockstep* trace_ls_ = nullptr;
  std::unique_ptr<PerSm> trace_owner_;
  uint64_t comparisons_ = 0, renames_total_ = 0, cycles_total_ = 0, list_clocks_ = 0, list_comparisons_ = 0;
  StalledWarpList* trace_list_ = nullptr;
};

}  // namespace

mech::MechanismInfo carsMechanismInfo() {
  mech::MechanismInfo m;
  m.name = "cars";
  m.summary = "compiler-assisted register stacks for function calls (rename unit: RFP/RSP, Base + index)";
  m.status = "partial: push/pop compiler pass; the rename unit (RTL in lockstep) on every SM renames every "
             "register access, the register values live at the renamed rows; calls, returns, pushes and pops; the "
             "circular stack with the overflow trap (oldest frames spilled to local memory, filled back on return); "
             "the barrier context switch; adaptive allocation (Fig. 5) or fixed low/high/Nxlow levels; the "
             "stalled-warp list and the warp status check; +1 issue and +1 operand-collector cycle; the paper's "
             "baselines and figures, the fully inlined baseline included (scripts/cars_repro.sh); the stalled-warp "
             "list as RTL in lockstep; the energy of both units per operation, from their gate-level simulation";
  m.paper = "CARS: a contention-aware register stacking mechanism for GPU function calls";
  m.section.name = "cars";
  m.section.desc = "CARS rename unit (CARS paper, section IV-B) and its co-simulation";
  m.section.make = [] { return config::ErasedSection(std::make_unique<config::SectionOf<CarsConfig>>()); };
  m.section.moved_in = {"demo"};  // the demo's traffic was a top-level section
  m.section.check = [](const config::ErasedSection& s) -> std::optional<config::SectionViolation> {
    const auto& c = s.as<CarsConfig>();
    // The waveform is of the Verilated rename unit, which only runs with rtl.
    if (c.trace && !c.rtl) return config::SectionViolation{"trace", "rtl", "a waveform needs the RTL in the loop (rtl: true)"};
    return std::nullopt;
  };
  m.rtl_units = {"cars_rename", "cars_stalled_warps"};
  m.cost = carsCostUnits;
  m.isa_ops = carsIsaOps();
  m.control_fields = {{kFruField, kFruBits}};
  m.composes_after = {{"r2d2", "R2D2's register classes keep rows at the top of the register file; CARS renames the "
                                 "general registers into the rows below them"},
                      {"regdem", "RegDem changes only code (and refuses kernels with calls): CARS renames the "
                                 "registers of the demoted code"}};
  m.make = [](const config::GpuConfig& cfg) { return std::make_unique<Cars>(cfg); };
  m.places_registers = true;  // in regions of its own (cars_regions.h)
  m.commands.subcommands.push_back(demoCommand());
  return m;
}

}  // namespace rfsim::cars
