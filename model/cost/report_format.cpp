// toMarkdown and toJson of cost_report.h.
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "cost/cost_report.h"
#include "common/error.h"
#include "cost/report_text.h"

namespace rfsim::cost {

namespace {

// First-order scaling (docs/cost.md): NAND2 area at 45 nm, FO4 of OSU018
// measured with OpenSTA, FO4 at 45 nm ~ 500 ps x 0.045.
constexpr double kNand2Um2At45nm = 0.8;
constexpr double kFo4Osu018Ns = 0.095;
constexpr double kFo4At45nmNs = 0.5 * 0.045;
// CACTI 7.0, 45 nm: one SM's 256 KB register file, 16 banks.
constexpr double kRegFile256KbMm2At45nm = 4.31;

// A unit in full: its figures, the flow's constraints, the scaling to 45 nm.
void fullMarkdown(const CostReport& r, const SynthResult& s, std::string& md) {
  md += "## Synthesis and timing (OSU 0.18 um)\n\n";
  std::string params;
  for (const auto& [k, v] : s.parameters) params += fmt::format("{}{} = {}", params.empty() ? "" : ", ", k, v);
  md += fmt::format("`{}` with {}; {}, {}, cells `{}`.\n\n", s.module, params, s.yosys_version,
                    s.sta_version, s.liberty);
  md += "| metric | value |\n|---|---:|\n";
  md += fmt::format("| transistors | {}{} |\n", grouped(s.transistors), s.transistors_complete ? "" : "+ (incomplete)");
  md += fmt::format("| logic levels (generic gates) | {} |\n", s.logic_levels);
  md += fmt::format("| flip-flops | {} |\n", grouped(s.flops));
  md += fmt::format("| standard cells | {} |\n", grouped(s.cells));
  md += fmt::format("| area | {} um2 |\n", groupedRound(s.area_um2));
  md += fmt::format("| gate equivalents (NAND2X1 = {:g} um2) | {} GE |\n", kNand2AreaUm2,
                    groupedRound(s.gate_equivalents));
  md += fmt::format("| critical path | {:.3f} ns ({} cells) |\n", s.critical_path_ns, s.critical_path_cells);
  md += fmt::format("| fmax | {:.1f} MHz |\n", s.fmax_mhz);
  md += fmt::format("| critical path start -> end | {} -> {} |\n\n", s.critical_start, s.critical_end);
  md += fmt::format(
      "Constraints: ideal {:g} ns clock on `clk_i`; every other input driven by an INVX1 with 0 ns input "
      "delay; every output loaded with {:.4f} pF (four INVX1 inputs) with 0 ns output delay. `rst_ni` is "
      "a false path: the asynchronous reset reaches every flop and its buffer tree is built at place and "
      "route, so it is not timed here. fmax = 1 / (period - slack) and so includes the endpoint's "
      "{:.3f} ns setup time. Transistors are `stat -tech cmos` after legalising every flop to a plain D "
      "flip-flop{}.\n\n",
      s.clock_period_ns, s.output_load_pf, s.setup_ns,
      s.transistors_complete ? " (a complete count)" : "; Yosys still left some cells unpriced");

  const double mm2 = s.gate_equivalents * kNand2Um2At45nm * 1e-6;
  const double fo4 = s.critical_path_ns / kFo4Osu018Ns;
  const double ns45 = fo4 * kFo4At45nmNs;
  md += "### First-order scaling to 45 nm\n\n";
  md += fmt::format(
      "- area: {} GE x {:g} um2 = {:.4f} mm2 per SM, {:.2f} mm2 for {} SMs; for scale, CACTI 7.0 gives "
      "{:g} mm2 for one SM's 256 KB register file at 45 nm ({:.1f} %).\n",
      groupedRound(s.gate_equivalents), kNand2Um2At45nm, mm2, mm2 * r.num_sms, r.num_sms, kRegFile256KbMm2At45nm,
      100.0 * mm2 / kRegFile256KbMm2At45nm);
  md += fmt::format(
      "- delay: {:.3f} ns = {:.1f} FO4 (FO4 = {:g} ps on OSU018) -> about {:.2f} ns at 45 nm "
      "(FO4 ~ {:g} ps), about {:.0f} MHz, against the configured core clock of {:g} MHz.\n\n",
      s.critical_path_ns, fo4, kFo4Osu018Ns * 1000, ns45, kFo4At45nmNs * 1000, 1000.0 / ns45,
      r.core_clock_mhz);
  md += "Area is scaled through gate equivalents, not by the square of the feature ratio: OSU cells are "
        "about 30x larger than 45 nm cells, not 16x.\n\n";
}

// A unit in short, the flops beside `flops_label`.
void unitTable(const SynthResult& s, const std::string& flops_label, std::string& md) {
  md += "| metric | value |\n|---|---:|\n";
  md += fmt::format("| flip-flops ({}) | {} |\n", flops_label, grouped(s.flops));
  md += fmt::format("| transistors | {}{} |\n", grouped(s.transistors), s.transistors_complete ? "" : "+ (incomplete)");
  md += fmt::format("| standard cells | {} |\n", grouped(s.cells));
  md += fmt::format("| area | {} um2 ({} GE) |\n", groupedRound(s.area_um2), groupedRound(s.gate_equivalents));
  md += fmt::format("| logic levels (generic gates) | {} |\n", s.logic_levels);
  md += fmt::format("| critical path | {:.3f} ns ({} cells), fmax {:.1f} MHz |\n", s.critical_path_ns,
                    s.critical_path_cells, s.fmax_mhz);
  md += fmt::format("| critical path start -> end | {} -> {} |\n\n", s.critical_start, s.critical_end);
}

// The per-operation energies of a group's units, as measured and scaled.
void energyMarkdown(const CostReport& r, const GroupReport& g, const std::vector<const GateEnergy*>& units,
                    std::string& md) {
  const double voltage = units.front()->voltage;
  md += "## Energy per operation (gate-level simulation, OSU 0.18 um)\n\n";
  md += fmt::format(
      "Each netlist ran a scripted stimulus in Yosys' `sim` (cells from the liberty file), its outputs "
      "compared with the RTL's every cycle; toggles per net times 1/2 C V^2 plus the cells' internal energy "
      "(liberty tables at the net's load and a {} ns input transition) give each phase's energy at {} V. Per "
      "operation: the phase's logic energy less the idle phase's, divided by its operations. Zero-delay "
      "simulation counts no glitches (a lower bound for the logic); the clock is charged apart, per cycle, with "
      "no clock gating. Scaled to {} nm and {} V: x {:.5f} (node / 180 nm x (V / {} V)^2, first order).\n\n",
      kNominalTransitionNs, voltage, r.target_node_nm, r.target_vdd, r.energy_scale, voltage);
  md += "| unit | phase | cycles | operations | net toggles | logic pJ | pJ per operation | scaled pJ |\n";
  md += "|---|---|---:|---:|---:|---:|---:|---:|\n";
  for (const GateEnergy* e : units)
    for (const PhaseEnergy& p : e->phases) {
      if (p.name == "reset" || p.name == "settle") continue;
      md += fmt::format("| {} | {} | {} | {} | {} | {:.1f} | {} | {} |\n", e->module, p.name, p.cycles, p.ops,
                        grouped(p.toggles), p.logic_pj, p.ops ? fmt::format("{:.2f}", p.pj_per_op) : "-",
                        p.ops ? fmt::format("{:.4f}", p.pj_per_op * r.energy_scale) : "-");
    }
  std::string head = "\n| per unit |", rule = "|---|", clock = "| clock, pJ per cycle |",
              idle = "| idle logic, pJ per cycle |", leak = "| leakage, uW |";
  double clock_sum = 0.0, leak_sum = 0.0;
  for (const GateEnergy* e : units) {
    head += fmt::format(" {} |", e->module);
    rule += "---:|";
    clock += fmt::format(" {:.1f} |", e->clock_pj_per_cycle);
    idle += fmt::format(" {:.2f} |", e->idle_logic_pj_per_cycle);
    leak += fmt::format(" {:.2f} |", e->leakage_w * 1e6);
    clock_sum += e->clock_pj_per_cycle;
    leak_sum += e->leakage_w;
  }
  md += head + (units.size() == 1 ? " scaled |" : units.size() == 2 ? " scaled, both |" : " scaled, all |") + "\n";
  md += rule + "---:|\n";
  md += clock + fmt::format(" {:.3f} |\n", clock_sum * r.energy_scale);
  md += idle + " |\n";
  md += leak + fmt::format(" {:.4f} mW |\n\n", leak_sum * r.energy_scale * 1e3);
  const auto keys = g.group.energy_keys ? g.group.energy_keys(g.view(), r.energy_scale)
                                        : std::vector<std::pair<std::string, double>>{};
  if (keys.empty()) return;
  md += fmt::format("The energy model's `mechanisms.{}` keys from these figures (scaled):\n\n", g.group.name);
  md += "| key | value |\n|---|---:|\n";
  for (const auto& [k, v] : keys) md += fmt::format("| `{}` | {:.4g} |\n", k, v);
  md += "\n";
}

std::vector<const GateEnergy*> energiesOf(const GroupReport& g) {
  std::vector<const GateEnergy*> e;
  for (const UnitResult& u : g.results)
    if (u.energy) e.push_back(&*u.energy);
  return e;
}

}  // namespace

std::string toMarkdown(const CostReport& r) {
  std::string md = fmt::format("# Hardware cost: `{}`\n\n", r.config_name);
  md += fmt::format("W = {} warps per SM, R = {} warp-registers per SM (register file / (4 B x warp size))",
                    r.warps, r.warp_registers);
  for (const GroupReport& g : r.groups)
    for (const std::string& s : g.group.summary) md += ", " + s;
  md += ".\n\n";
  for (const std::string& n : r.notes) md += fmt::format("- Note: {}\n", n);
  if (!r.notes.empty()) md += "\n";
  bool skipped_said = false;
  for (const GroupReport& g : r.groups) {
    md += g.group.markdown;
    if (!r.synthesized) {
      if (!g.group.units.empty() && !skipped_said)
        md += "## Synthesis and timing\n\nSkipped (analytic storage only).\n";
      skipped_said = skipped_said || !g.group.units.empty();
      continue;
    }
    const UnitResults view = g.view();
    for (std::size_t i = 0; i < g.group.units.size(); ++i) {
      const CostUnit& u = g.group.units[i];
      const SynthResult& s = g.results[i].synth;
      if (u.heading.empty()) {
        fullMarkdown(r, s, md);
      } else {
        md += u.heading + "\n\n" + u.intro + "\n\n";
        unitTable(s, u.flops_label, md);
      }
      if (g.group.after_unit) md += g.group.after_unit(i, view);
    }
    if (const auto e = energiesOf(g); !e.empty()) energyMarkdown(r, g, e, md);
  }
  return md;
}

namespace {

nlohmann::json synthJson(const SynthResult& s) {
  nlohmann::json params = nlohmann::json::object();
  for (const auto& [k, v] : s.parameters) params[k] = v;
  const double fo4 = s.critical_path_ns / kFo4Osu018Ns;
  return {
      {"module", s.module},
      {"parameters", params},
      {"flops", s.flops},
      {"cells", s.cells},
      {"cells_by_type", s.cells_by_type},
      {"transistors", s.transistors},
      {"transistors_complete", s.transistors_complete},
      {"logic_levels", s.logic_levels},
      {"area_um2", s.area_um2},
      {"gate_equivalents", s.gate_equivalents},
      {"clock_period_ns", s.clock_period_ns},
      {"critical_path_ns", s.critical_path_ns},
      {"slack_ns", s.slack_ns},
      {"setup_ns", s.setup_ns},
      {"critical_path", {{"start", s.critical_start}, {"end", s.critical_end}, {"cells", s.critical_path_cells}}},
      {"fmax_mhz", s.fmax_mhz},
      {"output_load_pf", s.output_load_pf},
      {"liberty", s.liberty},
      {"tools", {{"yosys", s.yosys_version}, {"sta", s.sta_version}}},
      {"scaling_45nm",
       {{"area_mm2", s.gate_equivalents * kNand2Um2At45nm * 1e-6},
        {"fo4", fo4},
        {"critical_path_ns", fo4 * kFo4At45nmNs}}},
  };
}

nlohmann::json energyJson(const GateEnergy& g) {
  nlohmann::json phases = nlohmann::json::array();
  for (const PhaseEnergy& p : g.phases)
    phases.push_back({{"name", p.name},
                      {"cycles", p.cycles},
                      {"ops", p.ops},
                      {"toggles", p.toggles},
                      {"logic_pj", p.logic_pj},
                      {"clock_pj", p.clock_pj},
                      {"pj_per_op", p.pj_per_op}});
  return nlohmann::json{{"module", g.module},
                        {"voltage", g.voltage},
                        {"nets", g.nets},
                        {"clock_pj_per_cycle", g.clock_pj_per_cycle},
                        {"idle_logic_pj_per_cycle", g.idle_logic_pj_per_cycle},
                        {"leakage_w", g.leakage_w},
                        {"phases", phases}};
}

}  // namespace

nlohmann::json toJson(const CostReport& r) {
  nlohmann::json j;
  j["config"] = r.config_name;
  j["config_warps"] = r.config_warps;
  j["config_warp_registers"] = r.config_warp_registers;
  j["warps"] = r.warps;
  j["warp_registers"] = r.warp_registers;
  j["num_sms"] = r.num_sms;
  j["core_clock_mhz"] = r.core_clock_mhz;
  j["notes"] = r.notes;
  // A contributor's keys go beside the report's own; a key given twice is
  // a contributor's mistake.
  const auto put = [&](const std::string& key, nlohmann::json value) {
    if (j.contains(key)) throw Error(fmt::format("cost: two parts of the report write cost.json key '{}'", key));
    j[key] = std::move(value);
  };
  for (const GroupReport& g : r.groups) {
    for (const auto& item : g.group.json.items()) put(item.key(), item.value());
    for (std::size_t i = 0; i < g.group.units.size(); ++i)
      put(g.group.units[i].json_key, r.synthesized ? synthJson(g.results[i].synth) : nlohmann::json(nullptr));
  }
  nlohmann::json units = nlohmann::json::array();
  nlohmann::json energy = {{"input_transition_ns", kNominalTransitionNs},
                           {"target_node_nm", r.target_node_nm},
                           {"target_vdd", r.target_vdd},
                           {"scale", r.energy_scale}};
  for (const GroupReport& g : r.groups) {
    for (const GateEnergy* e : energiesOf(g)) units.push_back(energyJson(*e));
    if (!g.group.energy_keys) continue;
    nlohmann::json keys = nlohmann::json::object();
    for (const auto& [k, v] : g.group.energy_keys(g.view(), r.energy_scale)) keys[k] = v;
    if (!keys.empty()) energy[g.group.name + "_keys"] = keys;
  }
  energy["units"] = units;
  j["energy"] = units.empty() ? nlohmann::json(nullptr) : energy;
  return j;
}

}  // namespace rfsim::cost
