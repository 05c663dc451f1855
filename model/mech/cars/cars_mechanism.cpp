#include "mech/cars/cars_mechanism.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "mech/cars/cars_config.h"
#include "mech/cars/cars_passes.h"
#include "common/gtkw.h"
#include "common/results_dir.h"
#include "mech/cars/rename_index_path.h"
#include "mech/cars/rename_lockstep.h"
#include "mech/cars/rename_waves.h"
#include "mech/cars/cars_sm.h"
#include "backend/backend.h"
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
        ADD_STAT(regs_per_warp, stats::unit::Count, "registers per warp: the kernel's frame plus its stack"),
        ADD_STAT(stack_regs, stats::unit::Count, "registers of each warp's in-register stack"),
        ADD_STAT(regions, stats::unit::Count, "warps that hold registers at once per SM") {}
  stats::Scalar cycles, renames, evaluations, launch_ops, port_overflow_cycles, call_ops, ret_ops, push_ops, pop_ops,
      pops_deferred, port_waits, stalled_warps, granted, regs_per_warp, stack_regs, regions;
};

// What a launch of one kernel needs, from its compiled "cars" variant.
struct KernelPlan {
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
    p.wm = watermarksOf(*it->second, info.kernel);
    p.barriers = reachesBarrier(*it->second, info.kernel);
    plan_ = p;
    return "cars";
  }

  // Blocks as the other limiters allow (threads, block slots, shared
  // memory): CARS limits concurrency at issue. A kernel with barriers keeps
  // whole blocks within the register file (a stalled warp would hold its
  // block's barrier, and the context-switch trap is not modelled).
  uint32_t admitBlocks(const mech::LaunchInfo&, const config::Occupancy& occ) override {
    uint32_t blocks = std::min({occ.blocks_by_shared, occ.blocks_by_warps, occ.blocks_by_slots});
    const uint32_t rows = cfg_.warpRegisters();
    const uint32_t warps_other = std::max(1u, blocks * occ.warps_per_block);
    const Watermarks& wm = plan_.wm;
    uint64_t level = c_.allocation == "low"     ? wm.low()
                     : c_.allocation == "2xlow" ? 2ull * wm.low()
                     : c_.allocation == "4xlow" ? 4ull * wm.low()
                                                : wm.high();
    // The leftover rule (repro.md 1.5): the register file split equally
    // over the warps the other limiters allow, when that is more.
    level = std::max<uint64_t>(level, rows / warps_other);
    const uint32_t max_stack = (1u << RenameParams::forSm(cfg_.sm.max_warps, rows, 1).free_bits) - 1;
    frame_ = wm.kernel_fru;
    stack_ = static_cast<uint32_t>(std::min<uint64_t>(level > frame_ ? level - frame_ : 0, max_stack));
    if (frame_ + stack_ > rows) stack_ = rows > frame_ ? rows - frame_ : 0;
    const uint32_t regions = rows / std::max(1u, frame_ + stack_);
    if (plan_.barriers) blocks = std::min(blocks, std::max(1u, regions / std::max(1u, occ.warps_per_block)));
    return blocks;
  }

  void attachSm(sm::Sm& sm, uint32_t sm_id) override {
    if (sm_id == 0) {
      if (traced_ && !trace_owner_ && !sms_.empty()) trace_owner_ = std::move(sms_.front());
      sms_.clear();
    }
    auto u = std::make_unique<PerSm>();
    u->regions = std::make_unique<CarsRegions>(cfg_.warpRegisters(), frame_, stack_, cfg_.sm.max_warps);
    u->path = std::make_unique<RenameIndexPath>(RenameIndexPath::unitFor(cfg_), u->regions.get(), &u->stats_root);
    u->gate = std::make_unique<CarsSm>(sm, sm_id, *u->path);
    sm.setRegAllocator(u->path.get());
    sm.collector().setTranslator(u->path.get());
    sm.setPhysicalRegisters(u->path->unit().params().num_regs);
    // The caller's RFP lives in a register of the warp's stack (CARS III-A).
    u->path->setRowAccess({[&sm](uint32_t row, uint32_t v) { std::fill_n(sm.physicalRow(row), 32, uint64_t{v}); },
                           [&sm](uint32_t row) { return static_cast<uint32_t>(sm.physicalRow(row)[0]); }});
    sm.setIssueGate(u->gate.get());
    sm.addEventHook(u->gate.get());
    if (sm_id == 0 && pending_trace_) startTrace(*u);
    sms_.push_back(std::move(u));
  }

  std::vector<sm::UnitInfo> smUnits(uint32_t) const override {
    return {{"cars_rename", "the CARS rename unit in the register index path (rtl/cars_rename.sv with rtl: true)",
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
      g->pops_deferred += u->gate->stats().pops_deferred;
      g->port_waits += u->gate->stats().port_waits;
      g->stalled_warps += u->regions->stalled_warps;
      if (auto* ls = dynamic_cast<RenameLockstep*>(&u->path->unit())) comparisons_ += ls->comparisons();
      renames_total_ += s.renames.get();
      cycles_total_ += s.cycles.get();
    }
    g->regs_per_warp = frame_ + stack_;
    g->stack_regs = stack_;
    g->regions = sms_.empty() ? 0 : sms_.front()->regions->regions();
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
    trace_ = Trace{vcd, gtkw, first, last};
    pending_trace_ = true;
    return {vcd, gtkw};
  }

  std::vector<std::string> endRun() override {
    if (!c_.rtl) return {};
    if (traced_) trace_ls_->rtl().closeTrace();
    // A mismatch throws where it happens, so a finished run had none.
    return {fmt::format("rename units in the index path (--rtl, every SM): {} cycles, {} renames, {} evaluations "
                        "compared RTL vs reference, 0 mismatches",
                        cycles_total_, renames_total_, comparisons_)};
  }

  bool rtlInLoop() const override { return c_.rtl; }

 private:
  struct PerSm {
    stats::Group stats_root{nullptr, "cars"};
    std::unique_ptr<CarsRegions> regions;
    std::unique_ptr<RenameIndexPath> path;
    std::unique_ptr<CarsSm> gate;
  };
  struct Trace {
    std::filesystem::path vcd, gtkw;
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
    traced_ = true;
    pending_trace_ = false;
  }

  const config::GpuConfig& cfg_;
  CarsConfig c_;
  KernelPlan plan_;
  uint32_t frame_ = 0, stack_ = 0;
  std::vector<std::unique_ptr<PerSm>> sms_;
  bool pending_trace_ = false, traced_ = false;
  Trace trace_;
  RenameLockstep* trace_ls_ = nullptr;
  std::unique_ptr<PerSm> trace_owner_;
  uint64_t comparisons_ = 0, renames_total_ = 0, cycles_total_ = 0;
};

}  // namespace

mech::MechanismInfo carsMechanismInfo() {
  mech::MechanismInfo m;
  m.name = "cars";
  m.summary = "compiler-assisted register stacks for function calls (rename unit: RFP/RSP, Base + index)";
  m.status = "partial: push/pop compiler pass; the rename unit (RTL in lockstep) on every SM renames every "
             "register access, the register values live at the renamed rows; calls, returns, pushes and pops, "
             "low/high/Nxlow allocation, the stalled-warp list and the warp status check; the overflow and "
             "barrier traps and the adaptive state machine are open";
  m.paper = "CARS: a contention-aware register stacking mechanism for GPU function calls";
  m.section.name = "cars";
  m.section.desc = "CARS rename unit (CARS paper, section IV-B) and its co-simulation";
  m.section.make = [] { return config::ErasedSection(std::make_unique<config::SectionOf<CarsConfig>>()); };
  m.section.check = [](const config::ErasedSection& s) -> std::optional<config::SectionViolation> {
    const auto& c = s.as<CarsConfig>();
    // The waveform is of the Verilated rename unit, which only runs with rtl.
    if (c.trace && !c.rtl) return config::SectionViolation{"trace", "rtl", "a waveform needs the RTL in the loop (rtl: true)"};
    return std::nullopt;
  };
  m.rtl_units = {"cars_rename"};
  m.isa_ops = carsIsaOps();
  m.control_fields = {{kFruField, kFruBits}};
  m.make = [](const config::GpuConfig& cfg) { return std::make_unique<Cars>(cfg); };
  return m;
}

}  // namespace rfsim::cars
