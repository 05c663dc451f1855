// The stats.json tree of a device's timing launches (docs/statistics.md),
// shared by `rfsim run --workload` and the CUDA runtime library (rfsim exec).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/gpu_config.h"

namespace rfsim::mech {
class Mechanism;
}
namespace rfsim::stats {
class Group;
}
namespace rfsim::energy {
class EnergyStats;
}

namespace rfsim::rt {

class Device;
struct LaunchRecord;

// The energy of a launch, or of launches summed: the GPU's statistics and
// each enabled mechanism's structures, counted in its group.
std::unique_ptr<energy::EnergyStats> energyOf(const config::GpuConfig& cfg, const stats::Group& gpu,
                                              const std::vector<const stats::Group*>& groups,
                                              const std::vector<mech::Mechanism*>& mechs);

// Timing launches summed as they come, so that memory stays bounded however
// many launches an application makes: the total (GPU, energy, mechanisms),
// a sum per kernel name (GPU statistics), and the full statistics of the
// first `detail_limit` launches (the later ones are counted in the sums only).
class LaunchAccumulator {
 public:
  LaunchAccumulator(const config::GpuConfig& cfg, std::vector<mech::Mechanism*> mechs,
                    uint64_t detail_limit = UINT64_MAX);
  ~LaunchAccumulator();
  void add(LaunchRecord&& r);
  uint64_t count() const { return launches_.size() + left_out_; }
  uint64_t leftOut() const { return left_out_; }  // launches without their own entry
  const nlohmann::json& launches() const { return launches_; }
  nlohmann::json total(double* nj_per_warp_instr = nullptr) const;
  nlohmann::json perKernel() const;

 private:
  struct Sum;
  const config::GpuConfig& cfg_;
  std::vector<mech::Mechanism*> mechs_;
  uint64_t detail_limit_;
  uint64_t left_out_ = 0;
  nlohmann::json launches_ = nlohmann::json::array();
  std::unique_ptr<Sum> total_;
  std::map<std::string, std::unique_ptr<Sum>> per_kernel_;
};

// The launch records `dev` holds (taken from it): each launch's GPU, energy
// and mechanism statistics as a JSON array, and in `total` their sum (counts
// summed, ratios recomputed from the sums, high-water marks kept; the energy
// of the summed counts). `nj_per_warp_instr`: the total's.
nlohmann::json launchesJson(const config::GpuConfig& cfg, Device& dev, const std::vector<mech::Mechanism*>& mechs,
                            nlohmann::json& total, double& nj_per_warp_instr);

}  // namespace rfsim::rt
