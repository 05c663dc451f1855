// R2D2's part of the hardware cost report (docs/cost.md): the physical
// register ID calculation with its register table (rtl/r2d2_regid.sv,
// section 4.2) through the synthesis flow, beside the paper's 16 x 8 b
// register table.
#pragma once

#include "cost/cost_unit.h"

namespace rfsim::mech::r2d2 {

// MechanismInfo::cost of R2D2: the unit for the SM's W warps and R warp
// registers.
cost::UnitGroup r2d2CostUnits(const cost::CostContext& context);

}  // namespace rfsim::mech::r2d2
