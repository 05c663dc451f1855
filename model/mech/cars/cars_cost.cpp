#include "mech/cars/cars_cost.h"

#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "common/error.h"
#include "cost/report_text.h"
#include "mech/cars/cars_config.h"
#include "mech/cars/energy_scenarios.h"
#include "mech/cars/storage_cost.h"

namespace rfsim::cars {

namespace {

using cost::bytesText;
using cost::grouped;
using cost::groupedRound;

// The paper's figure for W = 64, R = 2048 (section IV-C).
constexpr double kPaperTotalBytes = 264.0;

// Blocks synthesized with the same flow, for the order of magnitude of the
// rename unit.
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

std::string orderOfMagnitude(double ratio) {
  if (ratio >= 0.1 && ratio < 10.0) return "the same order of magnitude";
  const int k = static_cast<int>(std::lround(std::log10(ratio)));
  return fmt::format("about 10^{} times {}", std::abs(k), ratio > 1.0 ? "larger" : "smaller");
}

nlohmann::json itemsJson(const std::vector<StorageItem>& items) {
  nlohmann::json a = nlohmann::json::array();
  for (const StorageItem& i : items)
    a.push_back({{"name", i.name}, {"formula", i.formula}, {"description", i.description},
                 {"bits", i.bits}, {"bytes", i.bytes}});
  return a;
}

const StorageItem* findItem(const std::vector<StorageItem>& items, const std::string& name) {
  for (const StorageItem& i : items)
    if (i.name == name) return &i;
  return nullptr;
}

std::string storageMarkdown(const StorageCost& paper, const RtlStorage& rtl, uint32_t num_sms) {
  std::string md = "## Storage (CARS section IV-C)\n\n";
  md += "| item | formula | bits | bytes |\n|---|---|---:|---:|\n";
  for (const StorageItem& i : paper.items)
    md += fmt::format("| {} | {} | {} | {} |\n", i.name, i.formula, grouped(i.bits), bytesText(i.bytes));
  md += fmt::format("| **total** | | **{}** | **{}** |\n\n", grouped(paper.total_bits), bytesText(paper.total_bytes));
  md += fmt::format(
      "Paper total for W = 64, R = 2048: 48 + 40 + 176 = {} B per SM. This configuration: {} B per SM, "
      "{:.1f} KiB for its {} SMs.\n\n",
      kPaperTotalBytes, bytesText(paper.total_bytes), paper.total_bytes * num_sms / 1024.0, num_sms);

  md += "### Paper versus RTL\n\n| item | paper (bits) | RTL flops (`cars_rename`) |\n|---|---:|---:|\n";
  const auto cell = [](const StorageItem* i, const char* absent) { return i ? grouped(i->bits) : std::string(absent); };
  for (const char* name :
       {"stalled-warp list", "Base", "RFP + RSP", "free-register counters", "stack sizes K", "base allotment F"}) {
    const StorageItem* in_rtl = findItem(rtl.items, name);
    md += fmt::format("| {} | {} | {} |\n", name,
                      cell(findItem(paper.items, name), in_rtl ? "- (not counted)" : "- (baseline hardware)"),
                      cell(in_rtl, "- (issue stage)"));
  }
  md += fmt::format("| **total** | **{}** ({} B) | **{}** ({} B) |\n\n", grouped(paper.total_bits),
                    bytesText(paper.total_bytes), grouped(rtl.total_bits), bytesText(rtl.total_bytes));
  md += fmt::format(
      "The RTL holds per warp Base, RFP and RSP (log2 R = {} bits each), a FreeW = {}-bit free-register "
      "counter and the FreeW-bit size K of the warp's circular stack: {} flops x {} warps, and once the "
      "{}-bit base allotment F after which each stack starts. Base is the baseline's register-file offset, "
      "which the paper does not count; K and F place the circular stack the overflow trap wraps around "
      "(section IV-A), which the paper's count leaves out; the stalled-warp list belongs to the issue stage, "
      "not to the rename unit.\n\n",
      rtl.index_bits, rtl.free_bits, rtl.flops_per_warp, rtl.warps, rtl.index_bits);
  return md;
}

nlohmann::json storageJson(const StorageCost& paper, const RtlStorage& rtl) {
  return {{"paper",
           {{"items", itemsJson(paper.items)},
            {"total_bits", paper.total_bits},
            {"total_bytes", paper.total_bytes},
            {"paper_reference_bytes", kPaperTotalBytes}}},
          {"rtl",
           {{"items", itemsJson(rtl.items)},
            {"index_bits", rtl.index_bits},
            {"free_bits", rtl.free_bits},
            {"flops_per_warp", rtl.flops_per_warp},
            {"total_bits", rtl.total_bits},
            {"total_bytes", rtl.total_bytes}}}};
}

// The rename unit beside the reference blocks.
std::string referenceMarkdown(const cost::SynthResult& s) {
  std::string md = "### Versus the reference blocks\n\n";
  md += "| block | flops | transistors | levels | area um2 | critical path |\n|---|---:|---:|---:|---:|---:|\n";
  for (const ReferenceBlock& b : kReferenceBlocks)
    md += fmt::format("| {} (reference) | {} | {} | {} | {} | {:.2f} ns |\n", b.name, grouped(b.flops),
                      grouped(b.transistors), b.levels, grouped(static_cast<uint64_t>(b.area_um2)),
                      b.critical_ns);
  md += fmt::format("| **this unit** | {} | {} | {} | {} | {:.2f} ns |\n\n", grouped(s.flops),
                    grouped(s.transistors), s.logic_levels, groupedRound(s.area_um2), s.critical_path_ns);
  const double ratio = s.area_um2 / kClosestReference.area_um2;
  md += fmt::format(
      "This unit has {:.1f}x the area and {:.1f}x the flops of the reference {} ({} um2, {} flops): {}. "
      "The reference blocks show the order of magnitude the flow gives; they are not targets.\n",
      ratio, static_cast<double>(s.flops) / static_cast<double>(kClosestReference.flops), kClosestReference.name,
      grouped(static_cast<uint64_t>(kClosestReference.area_um2)), grouped(kClosestReference.flops),
      orderOfMagnitude(ratio));
  return md;
}

}  // namespace

std::vector<std::pair<std::string, double>> carsEnergyKeys(const cost::UnitResults& results, double k) {
  if (results.size() != 2 || !results[0] || !results[1] || !results[0]->energy || !results[1]->energy) return {};
  const cost::GateEnergy& e = *results[0]->energy;
  const cost::GateEnergy& l = *results[1]->energy;
  auto op = [&](const cost::GateEnergy& g, const char* phase) { return g.phase(phase).pj_per_op * k; };
  return {{"rename_pj", op(e, "rename")},
          {"push_pop_pj", (op(e, "push") + op(e, "pop")) / 2},
          {"call_ret_pj", op(e, "call_ret")},
          {"other_op_pj", op(e, "launch")},
          {"list_op_pj", (op(l, "push") + op(l, "release") + op(l, "remove")) / 3},
          {"clock_pj", (e.clock_pj_per_cycle + l.clock_pj_per_cycle) * k},
          {"static_mw", (e.leakage_w + l.leakage_w) * k * 1e3}};
}

cost::UnitGroup carsCostUnits(const cost::CostContext& c) {
  const uint32_t ports = carsConfig(c.config).rename_ports;
  if (ports < 1) throw Error("cost: the rename unit needs at least one read port");
  const uint32_t w = c.warps, r = c.warp_registers;
  const StorageCost paper = paperStorageCost(w, r);
  const RtlStorage rtl = rtlStorage(w, r);
  const uint32_t lw = exactLog2(w, "warps per SM (W)");

  cost::UnitGroup g;
  g.name = "cars";
  g.summary = {fmt::format("{} rename port{}", ports, ports == 1 ? "" : "s")};
  g.markdown = storageMarkdown(paper, rtl, c.config.gpu.num_sms);
  g.json = {{"read_ports", ports}, {"storage", storageJson(paper, rtl)}};

  cost::CostUnit rename;
  rename.module = "cars_rename";
  rename.packages = {"cars_pkg.sv"};
  rename.parameters = {{"NumWarps", w}, {"NumRegs", r}, {"NumReadPorts", ports}};
  rename.json_key = "synthesis";
  rename.declared_flops = rtl.total_bits;
  rename.stimulus = [w, r, ports] { return renameEnergyStimulus(RenameParams::forSm(w, r, ports)); };
  g.units.push_back(rename);

  // The stalled-warp list: W entries of log2(W) bits and a count of
  // log2(W) + 1 bits.
  cost::CostUnit stalled;
  stalled.module = "cars_stalled_warps";
  stalled.packages = {"cars_pkg.sv"};
  stalled.parameters = {{"NumWarps", w}};
  stalled.work_subdir = "stalled_warps";
  stalled.json_key = "synthesis_stalled_warps";
  stalled.declared_flops = uint64_t{w} * lw + lw + 1;
  stalled.stimulus = [w] { return stalledEnergyStimulus(w); };
  stalled.heading = "## The stalled-warp list and warp status check (`rtl/cars_stalled_warps.sv`)";
  stalled.intro = fmt::format(
      "The issue stage's list of warps without register space, oldest first, and the check that releases "
      "the oldest one an exit (or a barrier context switch) may release (section IV-B2). The paper counts "
      "{} entries x {} b = {} bits; the RTL adds the {}-bit entry count. Same flow and constraints as "
      "above.",
      w, lw, w * lw, lw + 1);
  stalled.flops_label = fmt::format("paper: {}", w * lw);
  g.units.push_back(stalled);

  g.after_unit = [](std::size_t i, const cost::UnitResults& res) -> std::string {
    if (i == 0 && res[0]) return referenceMarkdown(res[0]->synth);
    if (i == 1 && res[0] && res[1]) {
      const cost::SynthResult &s = res[1]->synth, &n = res[0]->synth;
      return fmt::format("Together with the rename unit: {} um2 ({} GE) and {} flops per SM.\n\n",
                         groupedRound(s.area_um2 + n.area_um2), groupedRound(s.gate_equivalents + n.gate_equivalents),
                         grouped(s.flops + n.flops));
    }
    return "";
  };
  g.energy_keys = carsEnergyKeys;
  return g;
}

}  // namespace rfsim::cars
