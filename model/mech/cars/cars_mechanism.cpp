#include "mech/cars/cars_mechanism.h"

#include <array>

#include <fmt/format.h>

#include "mech/cars/cars_config.h"
#include "common/gtkw.h"
#include "common/results_dir.h"
#include "mech/cars/rename_index_path.h"
#include "mech/cars/rename_lockstep.h"
#include "mech/cars/rename_waves.h"
#include "sm/core/sm.h"

namespace rfsim::cars {

namespace {

// The rename unit's counters over one launch.
struct CarsLaunchStats : stats::Group {
  explicit CarsLaunchStats(stats::Group* parent)
      : Group(parent, "cars", "CARS rename unit in SM 0's register-index path"),
        ADD_STAT(cycles, stats::unit::Cycle, "SM 0 cycles the unit was clocked"),
        ADD_STAT(renames, stats::unit::Count, "register-file accesses renamed"),
        ADD_STAT(evaluations, stats::unit::Count, "unit evaluations (each compared RTL vs reference with rtl: true)"),
        ADD_STAT(launch_ops, stats::unit::Count, "Launch operations (a warp's Base written)"),
        ADD_STAT(port_overflow_cycles, stats::unit::Cycle, "cycles with more renames than rename ports") {}
  stats::Scalar cycles, renames, evaluations, launch_ops, port_overflow_cycles;
};

class Cars final : public mech::Mechanism {
 public:
  explicit Cars(const config::GpuConfig& cfg)
      : rtl_(carsConfig(cfg).rtl),
        path_(std::make_unique<RenameIndexPath>(RenameIndexPath::unitFor(cfg), nullptr, &unit_stats_)) {}
  std::string name() const override { return "cars"; }

  void attachSm(sm::Sm& sm, uint32_t sm_id) override {
    if (sm_id != 0) return;  // one unit, in SM 0 (the traced SM)
    sm.setRegAllocator(path_.get());
    sm.collector().setTranslator(path_.get());
    sm.setPhysicalRegisters(path_->unit().params().num_regs);
  }

  std::vector<sm::UnitInfo> smUnits(uint32_t sm_id) const override {
    if (sm_id != 0) return {};
    return {{"cars_rename", "the CARS rename unit in the register index path (rtl/cars_rename.sv with rtl: true)",
             "mechanisms.cars"}};
  }
  std::unique_ptr<stats::Group> endLaunch(stats::Group* parent) override {
    auto g = std::make_unique<CarsLaunchStats>(parent);
    const IndexPathStats& s = path_->stats();
    g->cycles = s.cycles.get() - last_[0];
    g->renames = s.renames.get() - last_[1];
    g->evaluations = s.evaluations.get() - last_[2];
    g->launch_ops = s.launch_ops.get() - last_[3];
    g->port_overflow_cycles = s.port_overflow_cycles.get() - last_[4];
    last_ = {s.cycles.get(), s.renames.get(), s.evaluations.get(), s.launch_ops.get(), s.port_overflow_cycles.get()};
    return g;
  }

  // With the RTL in the loop, the rename unit's waveform beside the SM's,
  // over the same cycles, with a GTKWave view of it.
  std::vector<std::filesystem::path> traceBeside(const std::filesystem::path& sm_vcd, uint64_t first,
                                                 uint64_t last) override {
    if (!rtl_) return {};
    auto& ls = dynamic_cast<RenameLockstep&>(path_->unit());
    std::filesystem::path vcd = sm_vcd;
    vcd.replace_extension(".rename.vcd");
    ls.rtl().traceTo(vcd, first, last - first + 1);  // the window is finite
    std::filesystem::path gtkw = vcd;
    gtkw.replace_extension(".gtkw");
    writeFileAtomic(gtkw, gtkwSaveFile(renameWaveView(ls.params(), vcd.string(), first)));
    traced_ = true;
    return {vcd, gtkw};
  }

  std::vector<std::string> endRun() override {
    if (!rtl_) return {};
    auto& ls = dynamic_cast<RenameLockstep&>(path_->unit());
    if (traced_) ls.rtl().closeTrace();
    // A mismatch throws where it happens, so a finished run had none.
    return {fmt::format("rename unit in the index path (--rtl): {} cycles, {} renames, {} evaluations "
                        "compared RTL vs reference, 0 mismatches",
                        path_->stats().cycles.get(), path_->stats().renames.get(), ls.comparisons())};
  }

  bool rtlInLoop() const override { return rtl_; }

 private:
  bool rtl_ = false;
  bool traced_ = false;
  stats::Group unit_stats_{nullptr, "cars"};
  std::unique_ptr<RenameIndexPath> path_;
  std::array<uint64_t, 5> last_{};
};

}  // namespace

mech::MechanismInfo carsMechanismInfo() {
  mech::MechanismInfo m;
  m.name = "cars";
  m.summary = "compiler-assisted register stacks for function calls (rename unit: RFP/RSP, Base + index)";
  m.status = "partial: the rename unit (RTL in lockstep with its C++ reference) renames SM 0's register "
             "accesses as Base + index; push/pop, calls and returns, the stalled-warp list and traps are open";
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
  m.make = [](const config::GpuConfig& cfg) { return std::make_unique<Cars>(cfg); };
  return m;
}

}  // namespace rfsim::cars
