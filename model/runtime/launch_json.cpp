// The stats.json tree of timing launches (docs/statistics.md), shared by
// `rfsim run --workload` and the CUDA runtime library (rfsim exec).
#include "runtime/launch_json.h"

#include <algorithm>
#include <map>

#include "energy/energy_model.h"
#include "gpu/gpu_stats.h"
#include "mech/mechanism.h"
#include "runtime/runtime.h"
#include "stats/stats.h"

namespace rfsim::rt {

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

// A sum of launches: the GPU's statistics, and each mechanism's group (the
// first group of a name takes the counts of the later ones: a mechanism's
// groups have the same shape every launch).
struct LaunchAccumulator::Sum {
  std::unique_ptr<gpu::GpuStats> gpu;
  std::vector<std::unique_ptr<stats::Group>> groups;
  uint64_t launches = 0;

  void add(const config::GpuConfig& cfg, const LaunchRecord& r, std::vector<std::unique_ptr<stats::Group>> mech) {
    const auto& g = dynamic_cast<const gpu::GpuStats&>(*r.gpu);
    if (!gpu) gpu = std::make_unique<gpu::GpuStats>(nullptr, "gpu", cfg, static_cast<uint32_t>(g.sm_cycles.size()));
    stats::accumulate(*gpu, g, stats::Accumulate::kOverTime);
    for (auto& m : mech) {
      auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& x) { return x->name() == m->name(); });
      if (it == groups.end())
        groups.push_back(std::move(m));
      else
        stats::accumulate(**it, *m, stats::Accumulate::kOverTime);
    }
    ++launches;
  }

  nlohmann::json json(const config::GpuConfig& cfg, const std::vector<mech::Mechanism*>& mechs,
                      double* nj_per_warp_instr) const {
    nlohmann::json mt = nlohmann::json::object();
    std::vector<const stats::Group*> gs;
    for (const auto& g : groups) {
      mt[g->name()] = stats::groupToJson(*g);
      gs.push_back(g.get());
    }
    const auto e = energyOf(cfg, *gpu, gs, mechs);
    if (nj_per_warp_instr) *nj_per_warp_instr = e->per_warp_instr.get();
    return {{"gpu", stats::groupToJson(*gpu)}, {"energy", stats::groupToJson(*e)}, {"mechanisms", mt}};
  }
};

LaunchAccumulator::LaunchAccumulator(const config::GpuConfig& cfg, std::vector<mech::Mechanism*> mechs,
                                     uint64_t detail_limit)
    : cfg_(cfg), mechs_(std::move(mechs)), detail_limit_(detail_limit), total_(std::make_unique<Sum>()) {}

LaunchAccumulator::~LaunchAccumulator() = default;

void LaunchAccumulator::add(LaunchRecord&& r) {
  if (launches_.size() < detail_limit_) {
    nlohmann::json m = nlohmann::json::object();
    std::vector<const stats::Group*> groups;
    for (const auto& g : r.mechanisms) {
      m[g->name()] = stats::groupToJson(*g);
      groups.push_back(g.get());
    }
    launches_.push_back({{"kernel", r.kernel},
                         {"variant", r.variant},
                         {"regs_per_thread", r.regs_per_thread},
                         {"blocks_per_sm", r.blocks_per_sm},
                         {"carveout", {{"shared_kb", r.shared_kb}, {"l1d_kb", r.l1d_kb}}},
                         {"cycles", r.cycles},
                         {"gpu", stats::groupToJson(*r.gpu)},
                         {"energy", stats::groupToJson(*energyOf(cfg_, *r.gpu, groups, mechs_))},
                         {"mechanisms", m}});
    if (!r.notes.empty()) launches_.back()["notes"] = r.notes;
  } else {
    ++left_out_;
  }
  // Per kernel, the GPU's statistics (the mechanisms' groups are summed in
  // the total only: they cannot be copied).
  auto& k = per_kernel_[r.kernel];
  if (!k) k = std::make_unique<Sum>();
  k->add(cfg_, r, {});
  total_->add(cfg_, r, std::move(r.mechanisms));
}

nlohmann::json LaunchAccumulator::total(double* nj_per_warp_instr) const {
  if (!total_->gpu) return nlohmann::json::object();
  return total_->json(cfg_, mechs_, nj_per_warp_instr);
}

nlohmann::json LaunchAccumulator::perKernel() const {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, s] : per_kernel_)
    out[name] = {{"launches", s->launches}, {"gpu", stats::groupToJson(*s->gpu)}};
  return out;
}

nlohmann::json launchesJson(const config::GpuConfig& cfg, Device& dev, const std::vector<mech::Mechanism*>& mechs,
                            nlohmann::json& total, double& nj_per_warp_instr) {
  LaunchAccumulator acc(cfg, mechs);
  for (LaunchRecord& r : dev.takeLaunchRecords()) acc.add(std::move(r));
  if (acc.count() == 0) return nlohmann::json::array();
  total = acc.total(&nj_per_warp_instr);
  return acc.launches();
}

}  // namespace rfsim::rt
