// toMarkdown and toJson of cost_report.h.
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "cost/cost_report.h"

namespace rfsim::cost {

namespace {

// The paper's figure for W = 64, R = 2048 (CARS section IV-C).
constexpr double kPaperTotalBytes = 264.0;

// First-order scaling (shared/spec/cost-reference.md): NAND2 area at 45 nm,
// FO4 of OSU018 measured with OpenSTA, FO4 at 45 nm ~ 500 ps x 0.045.
constexpr double kNand2Um2At45nm = 0.8;
constexpr double kFo4Osu018Ns = 0.095;
constexpr double kFo4At45nmNs = 0.5 * 0.045;
// CACTI 7.0, 45 nm: one SM's 256 KB register file, 16 banks.
constexpr double kRegFile256KbMm2At45nm = 4.31;

// Blocks synthesized with the same flow, for the order of magnitude.
struct ReferenceBlock {
  const char* name;
  uint64_t flops;
  uint64_t transistors;
  uint32_t levels;
  double area_um2;
  double critical_ns;
};
constexpr ReferenceBlock kReferenceBlocks[] = {
    {"rename (6-bit compare + 11-bit add), combinational", 0, 348, 11, 1834, 1.33},
    {"register-ID calc (w*40 + r by shift-add)", 0, 322, 9, 2015, 1.12},
    {"16-entry free list (queue)", 81, 3078, 10, 17970, 1.56},
    {"64-warp rename tables", 1100, 41596, 18, 240331, 2.55},
    {"256 x 5-bit table in flops", 1280, 49092, 9, 285037, 1.41},
};
constexpr const ReferenceBlock& kClosestReference = kReferenceBlocks[3];

// 1234567 -> "1 234 567", as cost-reference.md writes them.
std::string grouped(uint64_t v) {
  std::string s = std::to_string(v);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<std::size_t>(i), " ");
  return s;
}

std::string bytesText(double bytes) {
  return bytes == std::floor(bytes) ? grouped(static_cast<uint64_t>(bytes)) : fmt::format("{:g}", bytes);
}

std::string orderOfMagnitude(double ratio) {
  if (ratio >= 0.1 && ratio < 10.0) return "the same order of magnitude";
  const int k = static_cast<int>(std::lround(std::log10(ratio)));
  return fmt::format("about 10^{} times {}", std::abs(k), ratio > 1.0 ? "larger" : "smaller");
}

nlohmann::json itemsJson(const std::vector<cars::StorageItem>& items) {
  nlohmann::json a = nlohmann::json::array();
  for (const cars::StorageItem& i : items)
    a.push_back({{"name", i.name}, {"formula", i.formula}, {"description", i.description},
                 {"bits", i.bits}, {"bytes", i.bytes}});
  return a;
}

const cars::StorageItem* findItem(const std::vector<cars::StorageItem>& items, const std::string& name) {
  for (const cars::StorageItem& i : items)
    if (i.name == name) return &i;
  return nullptr;
}

void storageMarkdown(const CostReport& r, std::string& md) {
  md += "## Storage (CARS section IV-C)\n\n";
  md += "| item | formula | bits | bytes |\n|---|---|---:|---:|\n";
  for (const cars::StorageItem& i : r.paper.items)
    md += fmt::format("| {} | {} | {} | {} |\n", i.name, i.formula, grouped(i.bits), bytesText(i.bytes));
  md += fmt::format("| **total** | | **{}** | **{}** |\n\n", grouped(r.paper.total_bits),
                    bytesText(r.paper.total_bytes));
  md += fmt::format(
      "Paper total for W = 64, R = 2048: 48 + 40 + 176 = {} B per SM. This configuration: {} B per SM, "
      "{:.1f} KiB for its {} SMs.\n\n",
      kPaperTotalBytes, bytesText(r.paper.total_bytes), r.paper.total_bytes * r.num_sms / 1024.0, r.num_sms);

  md += "### Paper versus RTL\n\n| item | paper (bits) | RTL flops (`cars_rename`) |\n|---|---:|---:|\n";
  const auto cell = [](const cars::StorageItem* i, const char* absent) {
    return i ? grouped(i->bits) : std::string(absent);
  };
  for (const char* name :
       {"stalled-warp list", "Base", "RFP + RSP", "free-register counters", "stack sizes K", "base allotment F"}) {
    const cars::StorageItem* in_rtl = findItem(r.rtl.items, name);
    md += fmt::format("| {} | {} | {} |\n", name,
                      cell(findItem(r.paper.items, name), in_rtl ? "- (not counted)" : "- (baseline hardware)"),
                      cell(in_rtl, "- (issue stage)"));
  }
  md += fmt::format("| **total** | **{}** ({} B) | **{}** ({} B) |\n\n", grouped(r.paper.total_bits),
                    bytesText(r.paper.total_bytes), grouped(r.rtl.total_bits), bytesText(r.rtl.total_bytes));
  md += fmt::format(
      "The RTL holds per warp Base, RFP and RSP (log2 R = {} bits each), a FreeW = {}-bit free-register "
      "counter and the FreeW-bit size K of the warp's circular stack: {} flops x {} warps, and once the "
      "{}-bit base allotment F after which each stack starts. Base is the baseline's register-file offset, "
      "which the paper does not count; K and F place the circular stack the overflow trap wraps around "
      "(section IV-A), which the paper's count leaves out; the stalled-warp list belongs to the issue stage, "
      "not to the rename unit.\n\n",
      r.rtl.index_bits, r.rtl.free_bits, r.rtl.flops_per_warp, r.rtl.warps, r.rtl.index_bits);
}

void synthMarkdown(const CostReport& r, const SynthResult& s, std::string& md) {
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
  md += fmt::format("| area | {} um2 |\n", grouped(static_cast<uint64_t>(std::llround(s.area_um2))));
  md += fmt::format("| gate equivalents (NAND2X1 = {:g} um2) | {} GE |\n", kNand2AreaUm2,
                    grouped(static_cast<uint64_t>(std::llround(s.gate_equivalents))));
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
      grouped(static_cast<uint64_t>(std::llround(s.gate_equivalents))), kNand2Um2At45nm, mm2, mm2 * r.num_sms,
      r.num_sms, kRegFile256KbMm2At45nm, 100.0 * mm2 / kRegFile256KbMm2At45nm);
  md += fmt::format(
      "- delay: {:.3f} ns = {:.1f} FO4 (FO4 = {:g} ps on OSU018) -> about {:.2f} ns at 45 nm "
      "(FO4 ~ {:g} ps), about {:.0f} MHz, against the configured core clock of {:g} MHz.\n\n",
      s.critical_path_ns, fo4, kFo4Osu018Ns * 1000, ns45, kFo4At45nmNs * 1000, 1000.0 / ns45,
      r.core_clock_mhz);
  md += "Area is scaled through gate equivalents, not by the square of the feature ratio: OSU cells are "
        "about 30x larger than 45 nm cells, not 16x.\n\n";

  md += "### Versus the reference blocks\n\n";
  md += "| block | flops | transistors | levels | area um2 | critical path |\n|---|---:|---:|---:|---:|---:|\n";
  for (const ReferenceBlock& b : kReferenceBlocks)
    md += fmt::format("| {} (reference) | {} | {} | {} | {} | {:.2f} ns |\n", b.name, grouped(b.flops),
                      grouped(b.transistors), b.levels, grouped(static_cast<uint64_t>(b.area_um2)),
                      b.critical_ns);
  md += fmt::format("| **this unit** | {} | {} | {} | {} | {:.2f} ns |\n\n", grouped(s.flops),
                    grouped(s.transistors), s.logic_levels,
                    grouped(static_cast<uint64_t>(std::llround(s.area_um2))), s.critical_path_ns);
  const double ratio = s.area_um2 / kClosestReference.area_um2;
  md += fmt::format(
      "This unit has {:.1f}x the area and {:.1f}x the flops of the reference {} ({} um2, {} flops): {}. "
      "The reference blocks show the order of magnitude the flow gives; they are not targets.\n",
      ratio, static_cast<double>(s.flops) / static_cast<double>(kClosestReference.flops),
      kClosestReference.name, grouped(static_cast<uint64_t>(kClosestReference.area_um2)),
      grouped(kClosestReference.flops), orderOfMagnitude(ratio));
}

}  // namespace

namespace {

// A synthesized unit's figures, the flops beside the paper's count.
void unitTable(const SynthResult& s, const std::string& paper_flops, std::string& md) {
  md += "| metric | value |\n|---|---:|\n";
  md += fmt::format("| flip-flops ({}) | {} |\n", paper_flops, grouped(s.flops));
  md += fmt::format("| transistors | {}{} |\n", grouped(s.transistors), s.transistors_complete ? "" : "+ (incomplete)");
  md += fmt::format("| standard cells | {} |\n", grouped(s.cells));
  md += fmt::format("| area | {} um2 ({} GE) |\n", grouped(static_cast<uint64_t>(std::llround(s.area_um2))),
                    grouped(static_cast<uint64_t>(std::llround(s.gate_equivalents))));
  md += fmt::format("| logic levels (generic gates) | {} |\n", s.logic_levels);
  md += fmt::format("| critical path | {:.3f} ns ({} cells), fmax {:.1f} MHz |\n", s.critical_path_ns,
                    s.critical_path_cells, s.fmax_mhz);
  md += fmt::format("| critical path start -> end | {} -> {} |\n\n", s.critical_start, s.critical_end);
}

// R2D2's register ID unit beside the paper's 16 x 8 b register table
// (section 4.2; the paper gives no area or timing for the ID logic).
void r2d2Markdown(const CostReport& r, const SynthResult& s, std::string& md) {
  uint32_t idw = 0;
  while ((1u << idw) < r.warp_registers) ++idw;
  md += "## R2D2's physical register ID calculation and register table (`rtl/r2d2_regid.sv`)\n\n";
  md += fmt::format(
      "The operand collector's row lookup for general, thread-index, block-index, coefficient and linear "
      "registers (Fig. 11) with the 16-entry register table that maps a linear register to its "
      "thread-index register, for {} warps and {} warp registers ({}-bit rows). The paper counts the table "
      "as 16 x 8 b = 128 bits (a 4-bit linear and a 4-bit thread-index register ID); indexed by the linear "
      "register's ID, the RTL stores the thread-index ID and a valid bit, 16 x 5 = 80 flops. It states "
      "no area or timing for the ID logic; its text allows 5 extra cycles for it at a 1 % cost. Same flow "
      "and constraints as above.\n\n",
      r.warps, r.warp_registers, idw);
  unitTable(s, "paper: 128 bits", md);
}

// LTRF's WCB address lookup and AAUs beside the paper's WCB storage
// (section 5.2; repro.md 3.7).
void ltrfMarkdown(const CostReport& r, const SynthResult& s, std::string& md) {
  const uint32_t w = r.warps;
  md += "## LTRF's warp control blocks and address allocation units (`rtl/ltrf_wcb.sv`)\n\n";
  md += fmt::format(
      "Per warp the register-cache address table (256 registers x a 4-bit cache bank and a valid bit: the "
      "working-set vector), the warp offset with its valid bit and the address allocation unit (a 16-entry "
      "unused queue of cache banks with head and count; a bank's valid table entry marks it occupied); per SM "
      "the queue of the 8 warp offsets; two lookup ports. Synthesized for {} warps (the unit grows by one "
      "table and queue per warp). The paper's WCB storage for 64 warps, 64 x (256 x 5 + 3 + 256 + 256), is "
      "**114 880 bits** with its formula's 5-bit entries and **98 496** with the 4 bits its Fig. 12 draws; the "
      "liveness vector of LTRF+ (256 bits a warp) is kept by the C++ model, not this RTL. Same flow and "
      "constraints as above.\n\n",
      kLtrfSynthWarps);
  unitTable(s, fmt::format("RTL: {}", grouped(ltrfWcbFlops(kLtrfSynthWarps))), md);
  const double per_warp_area = s.area_um2 / kLtrfSynthWarps, per_warp_ge = s.gate_equivalents / kLtrfSynthWarps;
  md += fmt::format(
      "Per SM of {} warps: {} flops ({} with the liveness vectors; the paper: 114 880 / 98 496), about {} um2 "
      "({} GE) scaled from the slice.\n\n",
      w, grouped(ltrfWcbFlops(w)), grouped(ltrfWcbFlops(w) + uint64_t{w} * 256),
      grouped(static_cast<uint64_t>(std::llround(per_warp_area * w))),
      grouped(static_cast<uint64_t>(std::llround(per_warp_ge * w))));
}

// The stalled-warp list beside the paper's 64 x 6 b (section IV-C).
void stalledMarkdown(const CostReport& r, const SynthResult& s, std::string& md) {
  uint32_t lw = 0;
  while ((1u << lw) < r.warps) ++lw;
  md += "## The stalled-warp list and warp status check (`rtl/cars_stalled_warps.sv`)\n\n";
  md += fmt::format(
      "The issue stage's list of warps without register space, oldest first, and the check that releases "
      "the oldest one an exit (or a barrier context switch) may release (section IV-B2). The paper counts "
      "{} entries x {} b = {} bits; the RTL adds the {}-bit entry count. Same flow and constraints as "
      "above.\n\n",
      r.warps, lw, r.warps * lw, lw + 1);
  unitTable(s, fmt::format("paper: {}", r.warps * lw), md);
  if (r.synth)
    md += fmt::format("Together with the rename unit: {} um2 ({} GE) and {} flops per SM.\n\n",
                      grouped(static_cast<uint64_t>(std::llround(s.area_um2 + r.synth->area_um2))),
                      grouped(static_cast<uint64_t>(std::llround(s.gate_equivalents + r.synth->gate_equivalents))),
                      grouped(s.flops + r.synth->flops));
}

// The per-operation energies of the two netlists, as measured and scaled.
void energyMarkdown(const CostReport& r, std::string& md) {
  const GateEnergy& e = *r.energy;
  const GateEnergy& l = *r.stalled_energy;
  md += "## Energy per operation (gate-level simulation, OSU 0.18 um)\n\n";
  md += fmt::format(
      "Each netlist ran a scripted stimulus in Yosys' `sim` (cells from the liberty file), its outputs "
      "compared with the RTL's every cycle; toggles per net times 1/2 C V^2 plus the cells' internal energy "
      "(liberty tables at the net's load and a {} ns input transition) give each phase's energy at {} V. Per "
      "operation: the phase's logic energy less the idle phase's, divided by its operations. Zero-delay "
      "simulation counts no glitches (a lower bound for the logic); the clock is charged apart, per cycle, with "
      "no clock gating. Scaled to {} nm and {} V: x {:.5f} (node / 180 nm x (V / {} V)^2, first order).\n\n",
      kNominalTransitionNs, e.voltage, r.target_node_nm, r.target_vdd, r.energy_scale, e.voltage);
  md += "| unit | phase | cycles | operations | net toggles | logic pJ | pJ per operation | scaled pJ |\n";
  md += "|---|---|---:|---:|---:|---:|---:|---:|\n";
  for (const GateEnergy* g : {&e, &l})
    for (const PhaseEnergy& p : g->phases) {
      if (p.name == "reset" || p.name == "settle") continue;
      md += fmt::format("| {} | {} | {} | {} | {} | {:.1f} | {} | {} |\n", g->module, p.name, p.cycles, p.ops,
                        grouped(p.toggles), p.logic_pj, p.ops ? fmt::format("{:.2f}", p.pj_per_op) : "-",
                        p.ops ? fmt::format("{:.4f}", p.pj_per_op * r.energy_scale) : "-");
    }
  md += "\n| per unit | cars_rename | cars_stalled_warps | scaled, both |\n|---|---:|---:|---:|\n";
  md += fmt::format("| clock, pJ per cycle | {:.1f} | {:.1f} | {:.3f} |\n", e.clock_pj_per_cycle, l.clock_pj_per_cycle,
                    (e.clock_pj_per_cycle + l.clock_pj_per_cycle) * r.energy_scale);
  md += fmt::format("| idle logic, pJ per cycle | {:.2f} | {:.2f} | |\n", e.idle_logic_pj_per_cycle,
                    l.idle_logic_pj_per_cycle);
  md += fmt::format("| leakage, uW | {:.2f} | {:.2f} | {:.4f} mW |\n\n", e.leakage_w * 1e6, l.leakage_w * 1e6,
                    (e.leakage_w + l.leakage_w) * r.energy_scale * 1e3);
  const auto d = carsEnergyDefaults(r);
  md += "The energy model's `mechanisms.cars` keys from these figures (scaled):\n\n";
  md += "| key | value |\n|---|---:|\n";
  for (const auto& [k, v] : d) md += fmt::format("| `{}` | {:.4g} |\n", k, v);
  md += "\n";
}

}  // namespace

std::string toMarkdown(const CostReport& r) {
  std::string md = fmt::format("# CARS hardware cost: `{}`\n\n", r.config_name);
  md += fmt::format(
      "W = {} warps per SM, R = {} warp-registers per SM (register file / (4 B x warp size)), {} rename "
      "port{}.\n\n",
      r.warps, r.warp_registers, r.read_ports, r.read_ports == 1 ? "" : "s");
  for (const std::string& n : r.notes) md += fmt::format("- Note: {}\n", n);
  if (!r.notes.empty()) md += "\n";
  storageMarkdown(r, md);
  if (r.synth)
    synthMarkdown(r, *r.synth, md);
  else
    md += "## Synthesis and timing\n\nSkipped (analytic storage only).\n";
  if (r.stalled_synth) stalledMarkdown(r, *r.stalled_synth, md);
  if (r.energy && r.stalled_energy) energyMarkdown(r, md);
  if (r.r2d2_synth) r2d2Markdown(r, *r.r2d2_synth, md);
  if (r.ltrf_synth) ltrfMarkdown(r, *r.ltrf_synth, md);
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

}  // namespace

nlohmann::json toJson(const CostReport& r) {
  nlohmann::json j;
  j["config"] = r.config_name;
  j["config_warps"] = r.config_warps;
  j["config_warp_registers"] = r.config_warp_registers;
  j["warps"] = r.warps;
  j["warp_registers"] = r.warp_registers;
  j["read_ports"] = r.read_ports;
  j["num_sms"] = r.num_sms;
  j["core_clock_mhz"] = r.core_clock_mhz;
  j["notes"] = r.notes;
  j["storage"]["paper"] = {{"items", itemsJson(r.paper.items)},
                           {"total_bits", r.paper.total_bits},
                           {"total_bytes", r.paper.total_bytes},
                           {"paper_reference_bytes", kPaperTotalBytes}};
  j["storage"]["rtl"] = {{"items", itemsJson(r.rtl.items)},
                         {"index_bits", r.rtl.index_bits},
                         {"free_bits", r.rtl.free_bits},
                         {"flops_per_warp", r.rtl.flops_per_warp},
                         {"total_bits", r.rtl.total_bits},
                         {"total_bytes", r.rtl.total_bytes}};
  if (!r.synth) {
    j["synthesis"] = nullptr;
    return j;
  }
  j["synthesis"] = synthJson(*r.synth);
  j["synthesis_stalled_warps"] = r.stalled_synth ? synthJson(*r.stalled_synth) : nlohmann::json(nullptr);
  j["synthesis_r2d2_regid"] = r.r2d2_synth ? synthJson(*r.r2d2_synth) : nlohmann::json(nullptr);
  j["synthesis_ltrf_wcb"] = r.ltrf_synth ? synthJson(*r.ltrf_synth) : nlohmann::json(nullptr);
  if (!r.energy || !r.stalled_energy) {
    j["energy"] = nullptr;
    return j;
  }
  auto unit = [](const GateEnergy& g) {
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
  };
  nlohmann::json defaults = nlohmann::json::object();
  for (const auto& [k, v] : carsEnergyDefaults(r)) defaults[k] = v;
  j["energy"] = {{"input_transition_ns", kNominalTransitionNs},
                 {"target_node_nm", r.target_node_nm},
                 {"target_vdd", r.target_vdd},
                 {"scale", r.energy_scale},
                 {"units", {unit(*r.energy), unit(*r.stalled_energy)}},
                 {"cars_keys", defaults}};
  return j;
}

}  // namespace rfsim::cost
