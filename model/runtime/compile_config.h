// The back end's options from a GPU configuration: the compiler.* keys,
// and, with sm.dependency barriers, the SM's timing for the control codes
// (backend/depctl.h) -- the one place that knows both the back end and the
// SM (docs/architecture.md: the layers).
#pragma once

#include "backend/backend.h"
#include "backend/depctl.h"
#include "config/gpu_config.h"

namespace rfsim::rt {

// sm::depTiming of `cfg`, for the back end.
backend::DepTimingFn dependencyTiming(const config::GpuConfig& cfg);

// The compiler.* keys of `cfg` into `o`, and dep_timing set when
// sm.dependency is barriers (cleared otherwise).
void applyGpuConfig(backend::CompileOptions& o, const config::GpuConfig& cfg);

}  // namespace rfsim::rt
