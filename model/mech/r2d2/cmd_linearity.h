// `--linearity`, the analysis R2D2 adds to rfsim ptx.
#pragma once

#include "mech/commands.h"

namespace rfsim::mech::r2d2 {

mech::ModuleAnalysis linearityAnalysis();

}  // namespace rfsim::mech::r2d2
