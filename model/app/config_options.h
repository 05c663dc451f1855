// Loading the configuration a subcommand was given: file, then --set overrides.
#pragma once

#include <string>
#include <vector>

#include "app/commands.h"
#include "config/gpu_config.h"

namespace rfsim::app {

// The configuration file a --config value names: a path, or the bare name of
// one in configs/ ("maxwell").
std::string resolveConfigPath(const std::string& name);
// `reads`: mechanisms whose section the command itself reads whether or not
// they are enabled (a mechanism's own subcommand reads its section; rfsim
// cost reads those of the units it costs): their keys give no "mechanism is
// off" warning.
config::GpuConfig loadWithOverrides(const ConfigOptions& o, const std::vector<std::string>& reads = {});

}  // namespace rfsim::app
