#include <algorithm>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <map>
#include <regex>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app/config_options.h"
#include "gpu/simulation.h"
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
  // A default folder never collides with an earlier run's (two runs in the
  // same second get -2, -3, ...); an explicit --out still refuses one.
  const std::string base = fmt::format("results/{}-{}-{}", kind, config_name, stamp);
  std::string dir = base;
  for (unsigned n = 2; std::filesystem::exists(dir) || std::filesystem::exists(dir + ".partial"); ++n)
    dir = fmt::format("{}-{}", base, n);
  return dir;
}

nlohmann::json hierarchyOf(const config::GpuConfig& cfg) {
  std::vector<std::unique_ptr<mech::Mechanism>> mechs = mech::instantiate(cfg);
  std::vector<mech::Mechanism*> ptrs;
  for (auto& m : mechs) ptrs.push_back(m.get());
  gpu::Simulation sim(mech::smUnitsOf(ptrs));
  return gpu::describeHierarchy(sim, cfg);
}

int configCommand(const ConfigCmdOptions& o) {
  if (o.reference) {
    std::cout << config::configReferenceMarkdown();
    return 0;
  }
  const config::GpuConfig cfg = loadWithOverrides(o.config);
  if (o.hierarchy) {
    const nlohmann::json h = hierarchyOf(cfg);
    if (o.json) {
      std::cout << h.dump(2) << "\n";
      return 0;
    }
    // Numbered siblings (gpu.sm<i>, l2_slice<i>, dram<i>, sm_port<i>) and
    // what is under them once: "gpu.sm*.issue  (80)".
    const std::regex numbered(R"(([A-Za-z_])[0-9]+(\.|$))");
    std::vector<std::string> order;
    std::map<std::string, std::pair<nlohmann::json, uint32_t>> rows;
    for (const auto& e : h) {
      const std::string key = std::regex_replace(e["name"].get<std::string>(), numbered, "$1*$2");
      auto [it, fresh] = rows.try_emplace(key, e, 0);
      if (fresh) order.push_back(key);
      ++it->second.second;
    }
    size_t width = 0;
    for (const auto& k : order) width = std::max(width, k.size());
    for (const auto& k : order) {
      const auto& [e, n] = rows.at(k);
      const std::string name = n == 1 ? e["name"].get<std::string>() : k;
      std::cout << fmt::format("{:<{}}  {:>4}  {}", name, width, n == 1 ? std::string() : fmt::format("x{}", n),
                               e["desc"].get<std::string>());
      if (!e["stats"].get<std::string>().empty()) std::cout << "  [stats: " << e["stats"].get<std::string>() << "]";
      std::cout << "\n";
    }
    return 0;
  }
  if (o.json)
    std::cout << config::toJson(cfg).dump(2) << "\n";
  else
    std::cout << config::toYaml(cfg);
  return 0;
}

}  // namespace rfsim::app
