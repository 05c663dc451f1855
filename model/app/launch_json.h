// The stats.json tree of a device's timing launches (docs/statistics.md),
// shared by `rfsim run --workload` and the CUDA runtime library (rfsim exec).
#pragma once

#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/gpu_config.h"

namespace rfsim::rt {
class Device;
}
namespace rfsim::mech {
class Mechanism;
}
namespace rfsim::stats {
class Group;
}
namespace rfsim::energy {
class EnergyStats;
}

namespace rfsim::app {

// The energy of a launch, or of launches summed: the GPU's statistics and
// each enabled mechanism's structures, counted in its group.
std::unique_ptr<energy::EnergyStats> energyOf(const config::GpuConfig& cfg, const stats::Group& gpu,
                                              const std::vector<const stats::Group*>& groups,
                                              const std::vector<mech::Mechanism*>& mechs);

// The launch records `dev` holds (taken from it): each launch's GPU, energy
// and mechanism statistics as a JSON array, and in `total` their sum (counts
// summed, ratios recomputed from the sums, high-water marks kept; the energy
// of the summed counts). `nj_per_warp_instr`: the total's.
nlohmann::json launchesJson(const config::GpuConfig& cfg, rt::Device& dev, const std::vector<mech::Mechanism*>& mechs,
                            nlohmann::json& total, double& nj_per_warp_instr);

}  // namespace rfsim::app
