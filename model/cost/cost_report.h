// The hardware cost of CARS for one configuration: the paper's storage count
// (section IV-C), the flops the RTL holds, and, unless skipped, synthesis and
// static timing of rtl/cars_rename.sv on OSU 0.18 um cells (docs/cost.md).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/gpu_config.h"
#include "cost/gate_energy.h"
#include "cost/synth_flow.h"
#include "mech/cars/storage_cost.h"

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
  std::filesystem::path work_dir = "cost-work";  // scripts, logs and netlist of the flow
  std::filesystem::path liberty = kDefaultLiberty;
  std::filesystem::path rtl_dir = kDefaultRtlDir;
  std::optional<uint32_t> read_ports;  // rename ports synthesized; mechanisms.cars.rename_ports if unset
  bool skip_synthesis = false;         // analytic storage only; needs no tools
  double clock_period_ns = 10.0;
  std::optional<std::string> tool_search_path;  // where yosys and sta are looked up; $PATH if unset
  bool skip_energy = false;  // no gate-level energy simulation (it needs vcd2fst besides yosys)
  // First-order scaling of the energies from OSU018 (180 nm, 1.8 V) to the
  // GPU's process: switched capacitance in proportion to the feature size,
  // energy to V^2 (docs/cost.md). The V100 defaults: TSMC 12 nm, and a
  // supply of 0.9 V, an assumption (NVIDIA publishes none).
  double target_node_nm = 12.0;
  double target_vdd = 0.9;
};

// Energy scale from OSU018 at its nominal voltage to a node and supply.
double energyScale(double node_nm, double vdd, double osu_vdd = 1.8);

// Warps of the LTRF unit synthesized (a slice: its area grows with the warps).
inline constexpr uint32_t kLtrfSynthWarps = 2;
// Flops rtl/ltrf_wcb.sv declares for W warps (256 registers, 16 banks, 8
// offsets): per warp a 256 x 4-bit table, 256 valid bits, a 3-bit offset and
// its valid bit, a 16 x 4-bit unused queue, a 4-bit head and a 5-bit count;
// the offset queue: 8 x 3 bits, a 3-bit head and a 4-bit count.
inline uint64_t ltrfWcbFlops(uint32_t w) { return uint64_t{w} * (256 * 4 + 256 + 3 + 1 + 16 * 4 + 4 + 5) + 8 * 3 + 3 + 4; }

struct CostReport {
  std::string config_name;
  uint32_t config_warps = 0;            // sm.max_warps
  uint32_t config_warp_registers = 0;   // config.warpRegisters()
  uint32_t warps = 0;                   // W used: config_warps rounded up to a power of two
  uint32_t warp_registers = 0;          // R used: likewise
  uint32_t read_ports = 0;
  uint32_t num_sms = 0;
  double core_clock_mhz = 0.0;          // gpu.clock_mhz
  std::vector<std::string> notes;       // roundings and other departures from the config
  cars::StorageCost paper;              // section IV-C
  cars::RtlStorage rtl;                 // flops of rtl/cars_rename.sv
  std::optional<SynthResult> synth;     // absent when synthesis was skipped
  // rtl/cars_stalled_warps.sv (the stalled-warp list and warp status check)
  // through the same flow.
  std::optional<SynthResult> stalled_synth;
  // rtl/r2d2_regid.sv (R2D2's physical register ID calculation and register
  // table, section 4.2) through the same flow.
  std::optional<SynthResult> r2d2_synth;
  // rtl/ltrf_wcb.sv (LTRF's WCB address lookup and AAUs, section 5.2) for
  // kLtrfSynthWarps warps, through the same flow; per SM it scales with
  // the warps (one table and queue per warp).
  std::optional<SynthResult> ltrf_synth;
  // Gate-level energy per operation of the two netlists (absent when
  // synthesis or the energy step was skipped), and the scale to the target.
  std::optional<GateEnergy> energy, stalled_energy;
  double target_node_nm = 0.0, target_vdd = 0.0, energy_scale = 0.0;
};

// W = sm.max_warps, R = regfile.size_kb * 1024 / (4 * warp_size), read ports =
// cars.rename_ports unless overridden. Throws rfsim::Error when a tool, the
// liberty file or a flow step fails.
CostReport buildCostReport(const config::GpuConfig& config, const CostOptions& options);

// The `mechanisms.cars` energy keys (cars_config.h) the report's energies
// give, scaled to the target: rename_pj, push_pop_pj (mean of push and pop),
// call_ret_pj, other_op_pj (launch), list_op_pj (mean of push, release and
// remove), clock_pj (both units per cycle), static_mw (both units' leakage).
// Empty when the energy step did not run.
std::vector<std::pair<std::string, double>> carsEnergyDefaults(const CostReport& report);

std::string toMarkdown(const CostReport& report);
nlohmann::json toJson(const CostReport& report);

}  // namespace rfsim::cost
