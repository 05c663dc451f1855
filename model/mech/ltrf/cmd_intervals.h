// `--intervals N`, the analysis LTRF adds to rfsim ptx (the PTX's virtual
// registers) and rfsim backend (each variant's machine program).
#pragma once

#include <vector>

#include "mech/commands.h"

namespace rfsim::mech::ltrf {

std::vector<mech::ModuleAnalysis> intervalAnalyses();

}  // namespace rfsim::mech::ltrf
