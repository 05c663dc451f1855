// Shared by the RegDem tests: the GTX Titan X configuration with RegDem
// selected, and a workload compiled into RegDem's demoted variant.
#pragma once

#include <string>
#include <vector>

#include "backend/backend.h"
#include "config/config_io.h"
#include "mech/mechanism.h"
#include "mech/regdem/demote.h"
#include "ptx/link.h"
#include "runtime/compile_config.h"
#include "../mech_test_util.h"

namespace rfsim::test {

inline config::GpuConfig titanxRegdem(const std::vector<std::string>& sets = {}) {
  config::GpuConfig c = config::loadConfig(std::string(RFSIM_SOURCE_DIR) + "/configs/titanx.yaml");
  mech::select(c, "regdem");
  for (const auto& s : sets) config::applyOverride(c, s);
  config::validate(c, "test");
  return c;
}

// `workload`'s modules through the demotion pass alone, with the back end's
// options for `cfg` (dependency control included).
inline backend::CompiledModule compileRegdem(const std::string& workload, const config::GpuConfig& cfg) {
  backend::Variant v;
  v.name = "regdem";
  v.post.push_back(regdem::demotePass(cfg, cfg.mechanisms.get<regdem::RegDemConfig>("regdem")));
  backend::CompileOptions o;
  rt::applyGpuConfig(o, cfg);
  o.variant = &v;
  return backend::compileModule(ptx::parseAndLink(workloadModules(workload)), o);
}

}  // namespace rfsim::test
