#include <iostream>

#include <fmt/format.h>

#include "app/commands.h"
#include "common/results_dir.h"
#include "config/config_io.h"
#include "cost/cost_report.h"
#include "mech/mechanism.h"

namespace rfsim::app {

int costCommand(const CostOptions& o) {
  // Every registered mechanism's units, in the registry's order; their
  // sections are read even when the configuration switches them off.
  std::vector<cost::UnitGroupFn> groups;
  std::vector<std::string> reads;
  for (const mech::MechanismInfo& m : mech::all())
    if (m.cost) {
      groups.push_back(m.cost);
      reads.push_back(m.name);
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
  co.progress = [](const std::string& line) { std::cout << "rfsim cost: " << line << "..." << std::endl; };
  if (!o.no_synth)
    std::cout << fmt::format("rfsim cost: the RTL units for {} ({} warps, {} warp-registers per SM)\n", cfg.name,
                             cfg.sm.max_warps, cfg.warpRegisters());
  const cost::CostReport report = cost::buildCostReport(cfg, groups, co);

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
