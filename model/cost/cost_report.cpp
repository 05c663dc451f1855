#include "cost/cost_report.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/error.h"

namespace rfsim::cost {

namespace {

uint32_t roundUpPow2(uint32_t v) {
  uint32_t p = 1;
  while (p < v) p <<= 1;
  return p;
}

std::string parameterText(const std::vector<std::pair<std::string, uint64_t>>& params) {
  std::string s;
  for (const auto& [k, v] : params) s += fmt::format("{}{} = {}", s.empty() ? "" : ", ", k, v);
  return s;
}

}  // namespace

double energyScale(double node_nm, double vdd, double osu_vdd) {
  return (node_nm / 180.0) * (vdd / osu_vdd) * (vdd / osu_vdd);
}

UnitResults GroupReport::view() const {
  UnitResults v(group.units.size(), nullptr);
  for (std::size_t i = 0; i < results.size() && i < v.size(); ++i) v[i] = &results[i];
  return v;
}

const UnitResult* CostReport::result(const std::string& module) const {
  for (const GroupReport& g : groups)
    for (std::size_t i = 0; i < g.results.size(); ++i)
      if (g.group.units[i].module == module) return &g.results[i];
  return nullptr;
}

CostReport buildCostReport(const config::GpuConfig& config, const std::vector<UnitGroupFn>& groups,
                           const CostOptions& options) {
  CostReport r;
  r.config_name = config.name;
  r.num_sms = config.gpu.num_sms;
  r.core_clock_mhz = config.gpu.clock_mhz;
  r.config_warps = config.sm.max_warps;
  r.config_warp_registers = config.warpRegisters();
  if (r.config_warps < 1 || r.config_warp_registers < 1)
    throw Error(fmt::format("cost: configuration '{}' has {} warps and {} warp-registers per SM",
                            config.name, r.config_warps, r.config_warp_registers));

  // The RTL (and the papers' log2 terms) want powers of two; a configuration
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

  const CostContext context{config, r.warps, r.warp_registers};
  for (const UnitGroupFn& make : groups) {
    GroupReport g;
    g.group = make(context);
    r.notes.insert(r.notes.end(), g.group.notes.begin(), g.group.notes.end());
    r.groups.push_back(std::move(g));
  }
  if (options.skip_synthesis) return r;
  if (!options.skip_energy && (!(options.target_node_nm > 0.0) || !(options.target_vdd > 0.0)))
    throw Error("cost: the target node and supply for the energy scaling must be positive");

  const auto progress = [&](const std::string& line) {
    if (options.progress) options.progress(line);
  };
  FlowOptions f;
  f.liberty = options.liberty;
  f.rtl_dir = options.rtl_dir;
  f.clock_period_ns = options.clock_period_ns;
  f.tool_search_path = options.tool_search_path;
  f.progress = progress;
  for (GroupReport& g : r.groups)
    for (const CostUnit& u : g.group.units) {
      f.work_dir = u.work_subdir.empty() ? options.work_dir : options.work_dir / u.work_subdir;
      progress(fmt::format("synthesizing rtl/{}.sv ({}: {})", u.module, g.group.name, parameterText(u.parameters)));
      UnitResult res;
      res.synth = runSynthesis(SynthParams{u.module, u.packages, u.parameters}, f);
      // The netlist must hold exactly the flops the RTL declares.
      if (u.declared_flops && res.synth.flops != u.declared_flops)
        r.notes.push_back(fmt::format("the netlist of `{}` has {} flops where the RTL declares {}", u.module,
                                      res.synth.flops, u.declared_flops));
      if (!options.skip_energy && u.stimulus) {
        progress(fmt::format("gate-level energy of {}", u.module));
        GateEnergyOptions e;
        e.work_dir = f.work_dir;
        e.liberty = options.liberty;
        e.rtl_dir = options.rtl_dir;
        e.packages = u.packages;
        e.parameters = u.parameters;
        e.clock_period_ns = options.clock_period_ns;
        e.tool_search_path = options.tool_search_path;
        res.energy = runGateEnergy(u.stimulus(), e);
        if (r.energy_scale == 0.0) {
          r.target_node_nm = options.target_node_nm;
          r.target_vdd = options.target_vdd;
          r.energy_scale = energyScale(options.target_node_nm, options.target_vdd, res.energy->voltage);
        }
      }
      g.results.push_back(std::move(res));
    }
  r.synthesized = true;
  return r;
}

}  // namespace rfsim::cost
