// The hardware cost of a configuration (docs/cost.md): the units of RTL its
// contributors name (cost_unit.h), each through synthesis and static timing
// on OSU 0.18 um cells and, unless skipped, a gate-level energy estimate,
// with what each contributor adds around its units; as Markdown and JSON.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/gpu_config.h"
#include "cost/cost_unit.h"
#include "cost/gate_energy.h"
#include "cost/synth_flow.h"

namespace rfsim::cost {

#ifdef RFSIM_OSU018_LIB
inline constexpr const char* kDefaultLiberty = RFSIM_OSU018_LIB;
#else
inline constexpr const char* kDefaultLiberty = "";
#endif
#ifdef RFSIM_RTL_DIR
inline constexpr const char* kDefaultRtlDir = RFSIM_RTL_DIR;
#else
inline constexpr const char* kDefaultRtlDir = "rtl";
#endif

struct CostOptions {
  std::filesystem::path work_dir = "cost-work";  // scripts, logs and netlists of the flow
  std::filesystem::path liberty = kDefaultLiberty;
  std::filesystem::path rtl_dir = kDefaultRtlDir;
  bool skip_synthesis = false;  // the contributors' analytic sections only; needs no tools
  double clock_period_ns = 10.0;
  std::optional<std::string> tool_search_path;  // where yosys and sta are looked up; $PATH if unset
  bool skip_energy = false;  // no gate-level energy simulation (it needs vcd2fst besides yosys)
  // First-order scaling of the energies from OSU018 (180 nm, 1.8 V) to the
  // GPU's process: switched capacitance in proportion to the feature size,
  // energy to V^2 (docs/cost.md). The V100 defaults: TSMC 12 nm, and a
  // supply of 0.9 V, an assumption (NVIDIA publishes none).
  double target_node_nm = 12.0;
  double target_vdd = 0.9;
  // Told a line naming each step before it runs ("synthesizing rtl/x.sv ...").
  std::function<void(const std::string&)> progress;
};

// Energy scale from OSU018 at its nominal voltage to a node and supply.
double energyScale(double node_nm, double vdd, double osu_vdd = 1.8);

// One contributor's units and their results.
struct GroupReport {
  UnitGroup group;
  std::vector<UnitResult> results;  // one per unit; empty when synthesis was skipped
  UnitResults view() const;         // pointers to results, null for every unit when empty
};

struct CostReport {
  std::string config_name;
  uint32_t config_warps = 0;            // sm.max_warps
  uint32_t config_warp_registers = 0;   // config.warpRegisters()
  uint32_t warps = 0;                   // W used: config_warps rounded up to a power of two
  uint32_t warp_registers = 0;          // R used: likewise
  uint32_t num_sms = 0;
  double core_clock_mhz = 0.0;          // gpu.clock_mhz
  std::vector<std::string> notes;       // roundings and other departures from the config
  bool synthesized = false;             // false when synthesis was skipped
  std::vector<GroupReport> groups;      // in the order given
  // The scale of the energies to the target (0 when no energy was estimated).
  double target_node_nm = 0.0, target_vdd = 0.0, energy_scale = 0.0;

  // The result of the unit of top module `module`; null when there is none.
  const UnitResult* result(const std::string& module) const;
};

// W = sm.max_warps, R = regfile.size_kb * 1024 / (4 * warp_size), each
// rounded up to a power of two; every group's units through the flow, in
// order. Throws rfsim::Error when a tool, the liberty file or a flow step
// fails, or a contributor refuses the configuration.
CostReport buildCostReport(const config::GpuConfig& config, const std::vector<UnitGroupFn>& groups,
                           const CostOptions& options);

std::string toMarkdown(const CostReport& report);
nlohmann::json toJson(const CostReport& report);

}  // namespace rfsim::cost
