#include <ctime>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app/config_options.h"
#include "config/config_io.h"

namespace rfsim::app {

config::GpuConfig loadWithOverrides(const ConfigOptions& o) {
  config::GpuConfig cfg = config::loadConfig(o.file);
  for (const auto& s : o.sets) config::applyOverride(cfg, s);
  if (!o.sets.empty()) config::validate(cfg, o.file + " with --set");
  return cfg;
}

std::string defaultOutDir(const std::string& kind, const std::string& config_name) {
  std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::localtime(&now));
  return fmt::format("results/{}-{}-{}", kind, config_name, stamp);
}

int configCommand(const ConfigCmdOptions& o) {
  if (o.reference) {
    std::cout << config::configReferenceMarkdown();
    return 0;
  }
  const config::GpuConfig cfg = loadWithOverrides(o.config);
  if (o.json)
    std::cout << config::toJson(cfg).dump(2) << "\n";
  else
    std::cout << config::toYaml(cfg);
  return 0;
}

}  // namespace rfsim::app
