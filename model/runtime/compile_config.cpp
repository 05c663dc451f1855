#include "runtime/compile_config.h"

#include <memory>

#include "sm/issue/op_class.h"

namespace rfsim::rt {

backend::DepTimingFn dependencyTiming(const config::GpuConfig& cfg) {
  auto c = std::make_shared<const config::GpuConfig>(cfg);
  return [c](const ptx::Instr& in) { return sm::depTiming(in, *c); };
}

void applyGpuConfig(backend::CompileOptions& o, const config::GpuConfig& cfg) {
  static_cast<config::CompilerConfig&>(o) = cfg.compiler;
  o.dep_timing = cfg.sm.dependency == config::Dependency::Barriers ? dependencyTiming(cfg) : backend::DepTimingFn{};
}

}  // namespace rfsim::rt
