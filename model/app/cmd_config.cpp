#include <algorithm>
#include <ctime>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app/config_options.h"
#include "mech/mechanism.h"
#include "config/config_io.h"

namespace rfsim::app {

std::string resolveConfigPath(const std::string& name) {
  namespace fs = std::filesystem;
  const fs::path p(name);
  if (fs::exists(p)) return name;
  // A bare name ("maxwell") is configs/<name>.yaml of this checkout, and the
  // relative default (configs/v100.yaml) works from any directory.
  const fs::path src(RFSIM_SOURCE_DIR);
  if (p.parent_path().empty() && p.extension().empty() && fs::exists(src / "configs" / (name + ".yaml")))
    return (src / "configs" / (name + ".yaml")).string();
  if (p.is_relative() && fs::exists(src / p)) return (src / p).string();
  return name;  // loadConfig names it as missing
}

config::GpuConfig loadWithOverrides(const ConfigOptions& o, const std::vector<std::string>& reads) {
  config::GpuConfig cfg = config::loadConfig(resolveConfigPath(o.file));
  for (const auto& s : o.sets) config::applyOverride(cfg, s);
  if (!o.mech.empty()) mech::select(cfg, o.mech);
  if (!o.sets.empty() || !o.mech.empty()) config::validate(cfg, o.file + " with --set/--mech");
  mech::instantiate(cfg);  // checks the names and the combination now, with the message the user needs
  for (const auto& k : cfg.mechanisms.keysOfDisabled()) {
    const std::string name = k.substr(11, k.find('.', 11) - 11);
    if (std::find(reads.begin(), reads.end(), name) != reads.end()) continue;
    std::cerr << fmt::format("rfsim: warning: '{}' is set but mechanism {} is off (--mech {} switches it on)\n", k,
                             name, name);
  }
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
