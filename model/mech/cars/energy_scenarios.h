// The stimuli of CARS' gate-level energy estimate (docs/cost.md, "Energy per
// operation"): each unit's inputs cycle by cycle, in phases of one kind of
// operation, driven through the C++ reference so that every operation is one
// the unit accepts (a scenario that is not throws rfsim::Error).
//
// Rename unit (rtl/cars_rename.sv): reset; every warp launched (Base = w x
// R/W, half of its allotment the base frame, half its stack); two cycles to
// settle; idle; pushes of
// 1-4 registers on random warps; renames (every port a random warp and one
// of R0-R63, half of them callee-saved and possibly stacked); the pops
// undoing the pushes; calls with a FRU of 1-4, each followed by its return.
// Stalled-warp list (rtl/cars_stalled_warps.sv): reset; two cycles to settle;
// idle; W/2 warps
// deactivated; W/4 warp status checks releasing one of a random eligible set;
// W/4 removals.
#pragma once

#include <cstdint>

#include "cost/stimulus.h"
#include "mech/cars/rename_unit.h"

namespace rfsim::cars {

cost::Stimulus renameEnergyStimulus(const RenameParams& p, uint64_t seed = 1);
cost::Stimulus stalledEnergyStimulus(uint32_t num_warps, uint64_t seed = 1);

}  // namespace rfsim::cars
