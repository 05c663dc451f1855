#include <algorithm>
#include <iostream>
#include <map>
#include <regex>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app/commands.h"
#include "config/config_io.h"

namespace rfsim::app {

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
