// CARS' part of the hardware cost report (docs/cost.md): the paper's
// storage count (section IV-C) beside the flops of rtl/cars_rename.sv, the
// rename unit and the stalled-warp list (rtl/cars_stalled_warps.sv) through
// the synthesis flow with their gate-level energy stimuli, and the
// `mechanisms.cars` energy keys their energies give.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "cost/cost_unit.h"

namespace rfsim::cars {

// MechanismInfo::cost of CARS: the rename unit (W, R and
// mechanisms.cars.rename_ports read ports) and the stalled-warp list (W).
cost::UnitGroup carsCostUnits(const cost::CostContext& context);

// The `mechanisms.cars` energy keys (cars_config.h) the two units' energies
// give, scaled by `scale`: rename_pj, push_pop_pj (mean of push and pop),
// call_ret_pj, other_op_pj (launch), list_op_pj (mean of push, release and
// remove), clock_pj (both units per cycle), static_mw (both units'
// leakage). Empty when either energy is missing.
std::vector<std::pair<std::string, double>> carsEnergyKeys(const cost::UnitResults& results, double scale);

}  // namespace rfsim::cars
