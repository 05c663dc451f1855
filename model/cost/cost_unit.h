// The vocabulary of the cost report (docs/cost.md): a unit of RTL to cost
// (its top module, its parameters computed from the configuration, the
// stimulus of its gate-level energy estimate) and what else a contributor
// adds to the report around its units (an analytic storage count, notes,
// keys of its configuration section that the energies give). The report
// (cost_report.h) runs the flow on every unit it is given and writes them
// in order; it knows nothing of what a unit is for.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/gpu_config.h"
#include "cost/gate_energy.h"
#include "cost/stimulus.h"
#include "cost/synth_flow.h"

namespace rfsim::cost {

// The SM the units are costed for: the configuration's warps per SM (W)
// and warp-registers per SM (R), each rounded up to a power of two (the
// RTL's parameters want them so; the report notes a rounding).
struct CostContext {
  const config::GpuConfig& config;
  uint32_t warps = 0;           // W, at least 2
  uint32_t warp_registers = 0;  // R
};

// A synthesized unit's figures, and its energy when the energy step ran.
struct UnitResult {
  SynthResult synth;
  std::optional<GateEnergy> energy;
};

struct CostUnit {
  std::string module;                 // rtl/<module>.sv, the top module
  std::vector<std::string> packages;  // files of rtl/ read before it (its packages)
  std::vector<std::pair<std::string, uint64_t>> parameters;  // as chparam sets them
  std::string work_subdir;  // its scripts and logs: the work folder's subfolder ("": the work folder)
  std::string json_key;     // the cost.json key of its synthesis figures
  uint64_t declared_flops = 0;  // the flops its RTL declares; a netlist with others gets a note
  // Its inputs for the gate-level energy estimate; unset: no energy.
  std::function<Stimulus()> stimulus;
  // Its Markdown section. A unit without a heading is shown in full (the
  // flow's constraints and its first-order scaling to 45 nm); one with a
  // heading gets `intro` and a short table whose flip-flop row shows
  // `flops_label` beside the count ("paper: 128 bits").
  std::string heading;
  std::string intro;
  std::string flops_label;
};

// The results of one contributor's units, in its order; null where the
// unit was not synthesized.
using UnitResults = std::vector<const UnitResult*>;

// What one contributor (a mechanism) adds to the report.
struct UnitGroup {
  std::string name;  // the contributor's name: its configuration section
  std::vector<CostUnit> units;
  // Clauses of the report's opening line ("4 read ports").
  std::vector<std::string> summary;
  std::vector<std::string> notes;  // departures from the configuration
  std::string markdown;            // a section before its units (an analytic count)
  nlohmann::json json = nlohmann::json::object();  // keys merged into cost.json's top level
  // Markdown after unit `i`'s section, given every unit's results.
  std::function<std::string(std::size_t i, const UnitResults& results)> after_unit;
  // Keys of its configuration section that its units' energies give, scaled
  // by `scale` to the target process; empty when an energy is missing.
  std::function<std::vector<std::pair<std::string, double>>(const UnitResults& results, double scale)> energy_keys;
};

// A contributor's units for one configuration; throws rfsim::Error when the
// configuration cannot be costed.
using UnitGroupFn = std::function<UnitGroup(const CostContext& context)>;

}  // namespace rfsim::cost
