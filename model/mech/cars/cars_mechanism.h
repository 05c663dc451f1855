// CARS as a mechanism (CARS paper; docs/mechanisms.md). What exists of
// it: the rename unit (section IV-B), its RTL co-simulated in lockstep with
// the C++ reference, in the register-index path of SM 0, where it renames
// every register-file access of a launch as Base + index (section III-A, a
// register not pushed). The compiler's push/pop, calls and returns through
// the unit, the stalled-warp list and traps come with the CARS mechanism's
// own work and plug into the same interface.
#pragma once

#include "mech/mechanism.h"

namespace rfsim::cars {

mech::MechanismInfo carsMechanismInfo();

}  // namespace rfsim::cars
