// Loading the configuration a subcommand was given: file, then --set overrides.
#pragma once

#include "app/commands.h"
#include "config/gpu_config.h"

namespace rfsim::app {

config::GpuConfig loadWithOverrides(const ConfigOptions& o);

}  // namespace rfsim::app
