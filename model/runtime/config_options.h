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

// What a run was asked, stats.json's run.request (docs/statistics.md): the
// simulator's version, the --config, --set (in order) and --mech given, and
// the hash of the configuration they resolve to (`config_yaml`, config.yaml's
// text). The caller adds what it ran (workloads and size, or the
// application's command line). rfsim compare reuses a run only when its
// request matches the one it would make.
nlohmann::json runRequest(const ConfigOptions& o, const std::string& config_yaml);
// A content hash of `text` (FNV-1a, 64 bits) as "fnv1a64:" and 16 hex digits:
// it tells whether two configurations differ, nothing more.
std::string contentHash(const std::string& text);

// Timestamped default folder under results/.
std::string defaultOutDir(const std::string& kind, const std::string& config_name);
// The GPU's module hierarchy for `cfg` with its enabled mechanisms' units
// (gpu::describeHierarchy): `rfsim config --hierarchy`, hierarchy.json.
nlohmann::json hierarchyOf(const config::GpuConfig& cfg);

}  // namespace rfsim::rt
