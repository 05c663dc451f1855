// Loading the configuration a subcommand was given: file, then --set overrides.
#pragma once

#include "app/commands.h"
#include "config/gpu_config.h"

namespace rfsim::app {

// The configuration file a --config value names: a path, or the bare name of
// one in configs/ ("maxwell").
std::string resolveConfigPath(const std::string& name);
config::GpuConfig loadWithOverrides(const ConfigOptions& o);

}  // namespace rfsim::app
