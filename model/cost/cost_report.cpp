#include "cost/cost_report.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/error.h"
#include "mech/cars/cars_config.h"
#include "mech/cars/energy_scenarios.h"

namespace rfsim::cost {

namespace {

uint32_t roundUpPow2(uint32_t v) {
  uint32_t p = 1;
  while (p < v) p <<= 1;
  return p;
}

}  // namespace

double energyScale(double node_nm, double vdd, double osu_vdd) {
  return (node_nm / 180.0) * (vdd / osu_vdd) * (vdd / osu_vdd);
}

std::vector<std::pair<std::string, double>> carsEnergyDefaults(const CostReport& r) {
  if (!r.energy || !r.stalled_energy) return {};
  const GateEnergy& e = *r.energy;
  const GateEnergy& l = *r.stalled_energy;
  const double k = r.energy_scale;
  auto op = [&](const GateEnergy& g, const char* phase) { return g.phase(phase).pj_per_op * k; };
  return {{"rename_pj", op(e, "rename")},
          {"push_pop_pj", (op(e, "push") + op(e, "pop")) / 2},
          {"call_ret_pj", op(e, "call_ret")},
          {"other_op_pj", op(e, "launch")},
          {"list_op_pj", (op(l, "push") + op(l, "release") + op(l, "remove")) / 3},
          {"clock_pj", (e.clock_pj_per_cycle + l.clock_pj_per_cycle) * k},
          {"static_mw", (e.leakage_w + l.leakage_w) * k * 1e3}};
}

CostReport buildCostReport(const config::GpuConfig& config, const CostOptions& options) {
  CostReport r;
  r.config_name = config.name;
  r.num_sms = config.gpu.num_sms;
  r.core_clock_mhz = config.gpu.clock_mhz;
  r.config_warps = config.sm.max_warps;
  r.config_warp_registers = config.warpRegisters();
  r.read_ports = options.read_ports.value_or(cars::carsConfig(config).rename_ports);
  if (r.read_ports < 1) throw Error("cost: the rename unit needs at least one read port");
  if (r.config_warps < 1 || r.config_warp_registers < 1)
    throw Error(fmt::format("cost: configuration '{}' has {} warps and {} warp-registers per SM",
                            config.name, r.config_warps, r.config_warp_registers));

  // The RTL (and the paper's log2 terms) want powers of two; a configuration
  // that is not is costed for the next larger unit, and the report says so.
  r.warps = std::max<uint32_t>(2, roundUpPow2(r.config_warps));
  r.warp_registers = roundUpPow2(r.config_warp_registers);
  if (r.warps != r.config_warps)
    r.notes.push_back(fmt::format("sm.max_warps = {} is not a power of two >= 2: costed for W = {} warps",
                                  r.config_warps, r.warps));
  if (r.warp_registers != r.config_warp_registers)
    r.notes.push_back(fmt::format("the register file holds {} warp-registers, not a power of two: "
                                  "costed for R = {}",
                                  r.config_warp_registers, r.warp_registers));

  r.paper = cars::paperStorageCost(r.warps, r.warp_registers);
  r.rtl = cars::rtlStorage(r.warps, r.warp_registers);

  if (!options.skip_synthesis) {
    SynthParams p;
    p.num_warps = r.warps;
    p.num_regs = r.warp_registers;
    p.num_read_ports = r.read_ports;
    FlowOptions f;
    f.work_dir = options.work_dir;
    f.liberty = options.liberty;
    f.rtl_dir = options.rtl_dir;
    f.clock_period_ns = options.clock_period_ns;
    f.tool_search_path = options.tool_search_path;
    r.synth = runSynthesis(p, f);
    // The netlist must hold exactly the flops the RTL declares.
    if (r.synth->flops != r.rtl.total_bits)
      r.notes.push_back(fmt::format("the mapped netlist has {} flops where the RTL declares {}",
                                    r.synth->flops, r.rtl.total_bits));
    // The stalled-warp list: W entries of log2(W) bits and a count of
    // log2(W) + 1 bits.
    SynthParams sp = p;
    sp.module = "cars_stalled_warps";
    f.work_dir = options.work_dir / "stalled_warps";
    r.stalled_synth = runSynthesis(sp, f);
    uint32_t lw = 0;
    while ((1u << lw) < r.warps) ++lw;
    const uint64_t declared = uint64_t{r.warps} * lw + lw + 1;
    if (r.stalled_synth->flops != declared)
      r.notes.push_back(fmt::format("the stalled-warp list's netlist has {} flops where the RTL declares {}",
                                    r.stalled_synth->flops, declared));
    // R2D2's register ID unit: a 16-entry table of a 4-bit thread-index
    // register ID and a valid bit; the rest is combinational.
    SynthParams rp = p;
    rp.module = "r2d2_regid";
    f.work_dir = options.work_dir / "r2d2_regid";
    r.r2d2_synth = runSynthesis(rp, f);
    constexpr uint64_t kTableFlops = 16 * (4 + 1);
    if (r.r2d2_synth->flops != kTableFlops)
      r.notes.push_back(fmt::format("the R2D2 register ID unit's netlist has {} flops where the RTL declares {}",
                                    r.r2d2_synth->flops, kTableFlops));
    // LTRF's WCB address lookup and AAUs, a slice of kLtrfSynthWarps warps.
    SynthParams lp = p;
    lp.module = "ltrf_wcb";
    lp.num_warps = kLtrfSynthWarps;
    f.work_dir = options.work_dir / "ltrf_wcb";
    r.ltrf_synth = runSynthesis(lp, f);
    if (r.ltrf_synth->flops != ltrfWcbFlops(kLtrfSynthWarps))
      r.notes.push_back(fmt::format("the LTRF WCB/AAU netlist has {} flops where the RTL declares {}",
                                    r.ltrf_synth->flops, ltrfWcbFlops(kLtrfSynthWarps)));
    if (!options.skip_energy) {
      if (!(options.target_node_nm > 0.0) || !(options.target_vdd > 0.0))
        throw Error("cost: the target node and supply for the energy scaling must be positive");
      GateEnergyOptions e;
      e.liberty = options.liberty;
      e.rtl_dir = options.rtl_dir;
      e.clock_period_ns = options.clock_period_ns;
      e.tool_search_path = options.tool_search_path;
      e.work_dir = options.work_dir;
      e.parameters = p.parameters();
      r.energy = runGateEnergy(
          cars::renameEnergyStimulus(cars::RenameParams::forSm(r.warps, r.warp_registers, r.read_ports)), e);
      e.work_dir = options.work_dir / "stalled_warps";
      e.parameters = sp.parameters();
      r.stalled_energy = runGateEnergy(cars::stalledEnergyStimulus(r.warps), e);
      r.target_node_nm = options.target_node_nm;
      r.target_vdd = options.target_vdd;
      r.energy_scale = energyScale(options.target_node_nm, options.target_vdd, r.energy->voltage);
    }
  }
  return r;
}

}  // namespace rfsim::cost
