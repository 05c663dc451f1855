// The stats.json tree of a device's timing launches (docs/statistics.md),
// shared by `rfsim run --workload` and the CUDA runtime library (rfsim exec).
#include "app/launch_json.h"

#include <map>

#include "energy/energy_model.h"
#include "gpu/gpu_stats.h"
#include "mech/mechanism.h"
#include "runtime/runtime.h"
#include "stats/stats.h"

namespace rfsim::app {

// The energy of a launch, or of a workload's launches summed: the GPU's
// statistics and each enabled mechanism's structures, counted in its group.
std::unique_ptr<energy::EnergyStats> energyOf(const config::GpuConfig& cfg, const stats::Group& gpu,
                                              const std::vector<const stats::Group*>& groups,
                                              const std::vector<mech::Mechanism*>& mechs) {
  std::vector<energy::Structure> extra;
  for (const mech::Mechanism* m : mechs)
    for (const stats::Group* g : groups)
      if (g->name() == m->name())
        for (energy::Structure s : m->energyStructures(*g)) {
          s.name = m->name() + "." + s.name;
          extra.push_back(std::move(s));
        }
  return std::make_unique<energy::EnergyStats>(nullptr, cfg, gpu, extra);
}

// One workload's launches in the stats.json tree (docs/statistics.md):
// each launch's GPU, energy and mechanism statistics, and their total
// (counts summed, ratios recomputed from the sums, high-water marks kept;
// the energy of the summed counts). `nj_per_warp_instr`: the total's.
nlohmann::json launchesJson(const config::GpuConfig& cfg, rt::Device& dev, const std::vector<mech::Mechanism*>& mechs,
                            nlohmann::json& total, double& nj_per_warp_instr) {
  nlohmann::json launches = nlohmann::json::array();
  std::vector<rt::LaunchRecord> recs = dev.takeLaunchRecords();
  if (recs.empty()) return launches;
  const auto& first = dynamic_cast<const gpu::GpuStats&>(*recs.front().gpu);
  gpu::GpuStats sum(nullptr, "gpu", cfg, static_cast<uint32_t>(first.sm_cycles.size()));
  for (const auto& r : recs) {
    nlohmann::json m = nlohmann::json::object();
    std::vector<const stats::Group*> groups;
    for (const auto& g : r.mechanisms) {
      m[g->name()] = stats::groupToJson(*g);
      groups.push_back(g.get());
    }
    launches.push_back({{"kernel", r.kernel},
                        {"variant", r.variant},
                        {"regs_per_thread", r.regs_per_thread},
                        {"blocks_per_sm", r.blocks_per_sm},
                        {"cycles", r.cycles},
                        {"gpu", stats::groupToJson(*r.gpu)},
                        {"energy", stats::groupToJson(*energyOf(cfg, *r.gpu, groups, mechs))},
                        {"mechanisms", m}});
    stats::accumulate(sum, *r.gpu, stats::Accumulate::kOverTime);
  }
  // Each mechanism's groups have the same shape every launch: the first
  // group of each name takes the counts of the later ones of that name, once
  // every launch is written above.
  nlohmann::json mt = nlohmann::json::object();
  std::vector<const stats::Group*> groups;
  std::map<std::string, stats::Group*> by_name;
  for (auto& r : recs)
    for (auto& g : r.mechanisms) {
      auto [it, fresh] = by_name.try_emplace(g->name(), g.get());
      if (fresh)
        groups.push_back(g.get());
      else
        stats::accumulate(*it->second, *g, stats::Accumulate::kOverTime);
    }
  for (const stats::Group* g : groups) mt[g->name()] = stats::groupToJson(*g);
  const auto e = energyOf(cfg, sum, groups, mechs);
  nj_per_warp_instr = e->per_warp_instr.get();
  total = {{"gpu", stats::groupToJson(sum)}, {"energy", stats::groupToJson(*e)}, {"mechanisms", mt}};
  return launches;
}

}  // namespace rfsim::app
