#include "runtime/config_options.h"

#include <algorithm>
#include <cstdint>
#include <ctime>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "config/config_io.h"
#include "gpu/simulation.h"
#include "mech/mechanism.h"

namespace rfsim::rt {

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

std::string contentHash(const std::string& text) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : text) h = (h ^ c) * 0x100000001b3ull;
  return fmt::format("fnv1a64:{:016x}", h);
}

nlohmann::json runRequest(const ConfigOptions& o, const std::string& config_yaml) {
  return {{"version", RFSIM_VERSION},
          {"config", o.file},
          {"config_file", std::filesystem::absolute(resolveConfigPath(o.file)).string()},
          {"config_hash", contentHash(config_yaml)},
          {"sets", o.sets},
          {"mech", o.mech}};
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

}  // namespace rfsim::rt
