// RegDem as a mechanism (RegDem paper; docs/regdem.md): a compiler
// variant "regdem" whose machine pass demotes registers to shared memory
// (demote.h), and the launch-time choice of that variant where demotion
// reached its target. It adds no hardware.
#pragma once

#include "mech/mechanism.h"

namespace rfsim::regdem {

mech::MechanismInfo regdemMechanismInfo();

}  // namespace rfsim::regdem
