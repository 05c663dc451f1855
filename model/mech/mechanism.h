// A register-file mechanism as a run-time plug-in (docs/mechanisms.md).
//
// A mechanism lives in its own folder on both layers: model/mech/<name>/
// (its configuration section, compiler passes, SM hooks, statistics, C++
// references of its hardware) and rtl/<name>_*.sv (that hardware as RTL).
// It describes itself to the registry with a MechanismInfo: its name, its
// configuration section, what it cannot be combined with, its RTL units
// (with their parameters for the cost report), and a factory. The baseline code (the SM, the GPU, the back end, the
// runtime) never names a mechanism; it only calls the Mechanism interface
// at fixed points:
//
//   compile   variants()          the back-end variants it compiles each module
//                                 into (backend/passes.h), besides "base"
//   launch    chooseVariant()     which compiled variant a launch runs
//             admitBlocks()       blocks per SM it admits (default: the
//                                 baseline occupancy of the launched variant)
//             attachSm()          installs its hooks into each SM of the
//                                 launch (sm/core/hooks.h), before any block
//   hierarchy smUnits()           the units it adds to an SM, as modules of
//                                 the GPU's hierarchy (gpu.sm<i>.<unit>)
//   results   endLaunch()         its statistics of the launch (a group
//                                 under launches[i].mechanisms.<name>)
//             energyStructures()  its own structures for the energy model
//
// One Mechanism object exists per simulation (per rt::Device), made from the
// resolved configuration; it may keep state across launches (CARS remembers
// an adaptive level per kernel name).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "config/occupancy.h"
#include "backend/passes.h"
#include "config/gpu_config.h"
#include "cost/cost_unit.h"
#include "energy/energy_model.h"
#include "func/launch.h"
#include "mech/commands.h"
#include "ptx/isa_ext.h"
#include "sm/core/sm_units.h"
#include "stats/stats.h"

namespace rfsim::backend {
struct CompiledModule;
}
namespace rfsim::sm {
class Sm;
}

namespace rfsim::mech {

// What a launch is, for the launch-time hooks.
struct LaunchInfo {
  std::string kernel;
  uint64_t blocks = 0;            // grid size
  uint32_t threads_per_block = 0;
  uint32_t launch_index = 0;      // launches of this device so far
  bool timing = false;            // on the timing model (else functional only: no SM hooks run)
  uint32_t dynamic_shared = 0;    // bytes of dynamic shared memory per block
  // Cycles of each variant trialVariants asked for, measured on this launch.
  std::map<std::string, uint64_t> trial_cycles;
  // The launch's dimensions and arguments (R2D2 evaluates its coefficients
  // with them), and the address of a module variable by name.
  rt::Dim3 grid, block;
  const std::vector<std::vector<uint8_t>>* params = nullptr;
  std::function<uint64_t(const std::string&)> symbol_address;
  // Rows at the top of the SM's register file that the mechanisms' own
  // register classes take in this launch (Mechanism::classRows, summed once
  // every mechanism chose): a mechanism that places the general registers
  // itself (CARS' regions) keeps them below. Set before admitBlocks.
  uint32_t class_rows = 0;
};

// The variants a module was compiled into, by name ("base" always there).
using VariantTable = std::map<std::string, const backend::CompiledModule*>;

class Mechanism {
 public:
  virtual ~Mechanism() = default;
  virtual std::string name() const = 0;

  virtual std::vector<backend::Variant> variants() const { return {}; }
  // The variant a launch of `info.kernel` runs, one of `compiled`; "" when
  // this mechanism has no preference (another enabled one, or "base").
  virtual std::string chooseVariant(const LaunchInfo& info, const VariantTable& compiled) {
    (void)info, (void)compiled;
    return "";
  }
  // Rows at the top of the register file its register classes take in
  // this launch, when it runs beside a mechanism that places the general
  // registers (composition, MechanismInfo::composes_after); 0: none. Asked
  // after every mechanism chose its variant.
  virtual uint32_t classRows(const LaunchInfo& info) {
    (void)info;
    return 0;
  }
  // Variants to measure before choosing (RegDem's select: oracle): the
  // runtime runs the launch once per variant on the timing model from the
  // same global memory, restores the memory after each, and calls
  // chooseVariant with their cycles in info.trial_cycles. Timing runs only.
  virtual std::vector<std::string> trialVariants(const LaunchInfo& info, const VariantTable& compiled) {
    (void)info, (void)compiled;
    return {};
  }
  // Blocks per SM for the launch; `occ` is the baseline's for the chosen
  // variant. More than occ.blocks only if the mechanism's own hooks then
  // keep the SM within its resources (CARS limits warps at issue instead).
  virtual uint32_t admitBlocks(const LaunchInfo& info, const config::Occupancy& occ) {
    (void)info;
    return occ.blocks;
  }
  // Installs hooks into SM `sm_id` of the launch; what it installs must
  // outlive the launch (endLaunch is called after it).
  virtual void attachSm(sm::Sm& sm, uint32_t sm_id) { (void)sm, (void)sm_id; }
  // The hardware units it adds to SM `sm_id` (sm/core/sm_units.h): modules
  // gpu.sm<i>.<name> of the GPU's hierarchy, with where their statistics
  // are. Names must differ from the SM's own units and other mechanisms'.
  virtual std::vector<sm::UnitInfo> smUnits(uint32_t sm_id) const {
    (void)sm_id;
    return {};
  }
  // The launch ended: its statistics, as a group under `parent` named
  // name(), or null when it keeps none. Called once per launch.
  virtual std::unique_ptr<stats::Group> endLaunch(stats::Group* parent) {
    (void)parent;
    return nullptr;
  }
  // Whether the code of its variants computes its values in the functional
  // model as on its hardware (ordinary instructions, and extension
  // instructions without an architectural effect): then the blocks a launch
  // cut by sampling within it (gpu/block_sampler.h) never started may run
  // that code functionally. False for code whose values need the hardware
  // (CARS' push and pop go through the rename unit; R2D2's linear operands
  // are summed at the collector).
  virtual bool codeRunsFunctionally() const { return false; }
  // Sampled simulation (sim.sample launches, runtime/launch_sampler.h): the
  // launch chooseVariant was just asked about runs functionally instead,
  // with the base code; attachSm and endLaunch are not called for it. A
  // mechanism that learns across launches keeps what it learned unchanged
  // (nothing was measured); one that keeps state from chooseVariant to
  // endLaunch drops it here.
  virtual void launchSkipped(const LaunchInfo& info) { (void)info; }
  // Sampled simulation within a launch (sim.sample blocks, gpu/block_sampler.h):
  // the last `blocks` blocks of the launch (or of a trial) ran functionally,
  // not on the SMs the mechanism attached to. Called before endLaunch.
  virtual void blocksSkipped(const LaunchInfo& info, uint64_t blocks) { (void)info, (void)blocks; }
  // A fact about the launch that is not a count, for stats.json's
  // launches[].notes.<name> (R2D2: why the launch ran its original code);
  // "" for none. Asked once per launch, after endLaunch (trial runs are not
  // asked).
  virtual std::string launchNote() { return ""; }
  // A run writes SM 0's waveform to `sm_vcd` over cycles [first, last]
  // (rfsim run --trace-vcd): the mechanism may write its own units'
  // waveforms over the same cycles beside it (files named after sm_vcd).
  // Returns the files it will write; endRun closes them.
  virtual std::vector<std::filesystem::path> traceBeside(const std::filesystem::path& sm_vcd, uint64_t first,
                                                         uint64_t last) {
    (void)sm_vcd, (void)first, (void)last;
    return {};
  }
  // The run ended (every launch of every workload): lines for the run's
  // summary (e.g. how many RTL evaluations were compared).
  virtual std::vector<std::string> endRun() { return {}; }
  // Whether its RTL runs in the loop in this run (stats.json's run.rtl).
  virtual bool rtlInLoop() const { return false; }
  // The structures this mechanism adds, for the energy model: their events
  // counted in `stats` (a group endLaunch made, or the sum of several: a
  // workload's launches), energy per event and static power. Names are the
  // structures' own; the account prefixes them with name() and a dot.
  virtual std::vector<energy::Structure> energyStructures(const stats::Group& stats) const {
    (void)stats;
    return {};
  }
};

struct MechanismInfo {
  std::string name;
  std::string summary;  // one line
  std::string status;   // what of the paper exists; shown by `rfsim mechanisms`
  std::string paper;    // citation
  config::SectionType section;  // its configuration section (section.name == name)
  std::vector<std::string> rtl_units;  // rtl/<name>_*.sv top modules
  // Those units for the hardware cost report (`rfsim cost`, cost/cost_unit.h):
  // each one's parameters from the configuration, its energy stimulus, and
  // the mechanism's own sections of the report. Unset: it has none.
  cost::UnitGroupFn cost;
  // Its extensions of the machine ISA (ptx/isa_ext.h), registered with it:
  // instructions "<name>.<mnemonic>" and control fields "<name>.<field>"
  // with their widths in bits. Its passes find them by name
  // (ptx::findExtOp, ptx::registerControlField returns the field).
  std::vector<ptx::ExtOpDesc> isa_ops;
  std::vector<std::pair<std::string, uint8_t>> control_fields;
  // Register classes "<name>.<class>" (ptx::ExtRegClassDesc; `first` is
  // filled in); its passes name their registers by ptx::extReg.
  std::vector<ptx::ExtRegClassDesc> reg_classes;
  // Mechanisms it cannot be switched on with, and why.
  std::vector<std::pair<std::string, std::string>> conflicts;
  // Mechanisms it composes with, and how: switched on together, each of
  // these goes before it (instantiate orders them so, whatever the order
  // given), its code variants are compiled with theirs ("<theirs>+<its>":
  // their passes, then its own), it chooses after them from the variants
  // as their choice left them, and it attaches its SM hooks over theirs
  // (sm/core/sm_hooks.h, "Stacked").
  std::vector<std::pair<std::string, std::string>> composes_after;
  std::function<std::unique_ptr<Mechanism>(const config::GpuConfig&)> make;
  // It places the general registers itself (CARS' regions): a mechanism it
  // composes after then keeps only its own classes' rows, and leaves the
  // blocks an SM admits to it.
  bool places_registers = false;
  // Its subcommands of rfsim and its analyses for rfsim ptx / rfsim backend
  // (mech/commands.h).
  Commands commands;
};

// The registry: a table of mechanism types, filled once by
// registerMechanisms() (mech/builtin.cpp) at program start.
void add(MechanismInfo info);
const std::vector<MechanismInfo>& all();
const MechanismInfo* find(const std::string& name);
std::string knownNames();

// The mechanisms `cfg.mechanisms.enabled` names, made for one simulation.
// Throws rfsim::Error for an unknown name (listing the known ones), a name
// given twice, or a combination that cannot work (saying why).
std::vector<std::unique_ptr<Mechanism>> instantiate(const config::GpuConfig& cfg);

// Whether `later` composes after `earlier` (MechanismInfo::composes_after).
bool composesAfter(const std::string& later, const std::string& earlier);

// Every code variant `mechanisms` (in instantiate's order) need compiled:
// each one's own, and for each composing pair (A before B) every
// combination "a+b" of their variants, with a's passes then b's.
std::vector<backend::Variant> variantsOf(const std::vector<Mechanism*>& mechanisms);

// The mechanisms choose a launch's variant in order (docs/mechanisms.md
// "Composition"). After variant `chosen` was chosen ("" none yet), a
// mechanism composing after the ones that chose sees each of its variants X
// as the compiled "<chosen>+X", and "base" as <chosen> (variantName gives
// the name; "" when that combination was not compiled).
VariantTable variantsAfter(const std::string& chosen, const VariantTable& compiled);
std::string variantName(const std::string& chosen, const std::string& own, const VariantTable& compiled);

// Sets `cfg.mechanisms.enabled` from a --mech value ("cars", "ltrf,cars",
// "none"), checking the names.
void select(config::GpuConfig& cfg, const std::string& mech_option);

// The units `mechanisms` add to each SM (Mechanism::smUnits), as the GPU
// top takes them (gpu::ExtraSmUnits); empty for none.
std::function<std::vector<sm::UnitInfo>(uint32_t sm_id)> smUnitsOf(const std::vector<Mechanism*>& mechanisms);

// Every built-in mechanism and its configuration section. Idempotent; must
// run before the first GpuConfig is made (the entry points call it).
void registerMechanisms();

}  // namespace rfsim::mech
