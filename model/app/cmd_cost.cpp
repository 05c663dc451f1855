#include <algorithm>
#include <iostream>

#include <fmt/format.h>

#include "app/commands.h"
#include "common/error.h"
#include "common/progress.h"
#include "common/results_dir.h"
#include "config/config_io.h"
#include "cost/cost_report.h"
#include "mech/mechanism.h"

namespace rfsim::app {

int costCommand(const CostOptions& o) {
  // Every registered mechanism's units, in the registry's order; their
  // sections are read even when the configuration switches them off.
  std::vector<cost::UnitGroupFn> groups;
  std::vector<std::string> reads, with_units;
  for (const mech::MechanismInfo& m : mech::all())
    if (m.cost) {
      with_units.push_back(m.name);
      if (!o.units_of.empty() && std::find(o.units_of.begin(), o.units_of.end(), m.name) == o.units_of.end())
        continue;
      groups.push_back(m.cost);
      reads.push_back(m.name);
    }
  for (const std::string& n : o.units_of)
    if (std::find(with_units.begin(), with_units.end(), n) == with_units.end()) {
      std::string known;
      for (const std::string& k : with_units) known += (known.empty() ? "" : ", ") + k;
      throw UsageError(fmt::format("--units-of {}: no mechanism of that name has RTL units (those that do: {})", n,
                                   known));
    }
  const config::GpuConfig cfg = loadWithOverrides(o.config, reads);
  ResultsDir dir(o.output.out.empty() ? defaultOutDir("cost", cfg.name) : o.output.out, o.output.overwrite);
  dir.writeFile("config.yaml", config::toYaml(cfg));

  cost::CostOptions co;
  co.work_dir = dir.path("synth");  // the flow's scripts, logs and netlists stay with the report
  co.skip_synthesis = o.no_synth;
  co.skip_energy = o.no_energy;
  co.target_node_nm = o.node_nm;
  co.target_vdd = o.vdd;
  // Each unit's steps (synthesis, timing, energy) with their running time, on a terminal.
  ProgressLine progress(o.quiet);
  co.progress = [&progress](const std::string& line) { progress.ticking("rfsim cost: " + line); };
  if (!o.no_synth && !o.quiet)
    std::cout << fmt::format("rfsim cost: the RTL units for {} ({} warps, {} warp-registers per SM)\n", cfg.name,
                             cfg.sm.max_warps, cfg.warpRegisters());
  cost::CostReport report;
  try {
    report = cost::buildCostReport(cfg, groups, co);
  } catch (const std::exception& e) {
    dir.abandon(e.what());  // INCOMPLETE names what stopped it
    throw;
  }
  progress.clear();

  const std::string md = cost::toMarkdown(report);
  dir.writeFile("cost.md", md);
  dir.writeFile("cost.json", cost::toJson(report).dump(2) + "\n");
  if (!o.no_synth)
    for (const auto& entry : std::filesystem::directory_iterator(co.work_dir))
      if (entry.is_regular_file()) dir.addFile("synth/" + entry.path().filename().string());
  dir.commit();

  std::cout << md << "\nresults: " << dir.finalDir().string() << "\n";
  return 0;
}

}  // namespace rfsim::app
