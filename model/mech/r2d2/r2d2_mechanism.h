// R2D2 as a mechanism (Ha, Oh, Ro, ISCA'23; docs/r2d2.md,
// docs/r2d2.md): the transformation (transform.h) as the variant "r2d2",
// chosen per launch when its values fit and the linear registers keep the
// blocks per SM (else the original code runs, the reason kept), and in every
// SM of such a launch the unit of r2d2_sm.h.
#pragma once

#include "mech/mechanism.h"

namespace rfsim::mech::r2d2 {

mech::MechanismInfo r2d2MechanismInfo();

}  // namespace rfsim::mech::r2d2
