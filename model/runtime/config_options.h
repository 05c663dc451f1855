// What a program running the model starts from, shared by the rfsim
// command line and the CUDA runtime library (rfsim exec): the configuration
// it was given (file, then --set overrides, then --mech), the results
// folder it writes by default, and the GPU's module hierarchy.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/gpu_config.h"

namespace rfsim::rt {

// Options every subcommand that reads a configuration shares.
struct ConfigOptions {
  std::string file = "configs/v100.yaml";
  std::vector<std::string> sets;  // --set key=value, applied in order
  std::string mech;               // --mech NAME[,NAME] or none: overrides mechanisms.enabled
};

// The configuration file a --config value names: a path, or the bare name of
// one in configs/ ("maxwell").
std::string resolveConfigPath(const std::string& name);
// `reads`: mechanisms whose section the command itself reads whether or not
// they are enabled: their keys give no "mechanism is off" warning.
config::GpuConfig loadWithOverrides(const ConfigOptions& o, const std::vector<std::string>& reads = {});

// Timestamped default folder under results/.
std::string defaultOutDir(const std::string& kind, const std::string& config_name);
// The GPU's module hierarchy for `cfg` with its enabled mechanisms' units
// (gpu::describeHierarchy): `rfsim config --hierarchy`, hierarchy.json.
nlohmann::json hierarchyOf(const config::GpuConfig& cfg);

}  // namespace rfsim::rt
