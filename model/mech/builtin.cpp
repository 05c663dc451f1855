// The mechanisms this build knows: one line per folder of model/mech/.
#include "mech/cars/cars_mechanism.h"
#include "mech/ltrf/ltrf_mechanism.h"
#include "mech/mechanism.h"
#include "mech/r2d2/r2d2_mechanism.h"
#include "mech/regdem/regdem_mechanism.h"
#include "mech/toy/toy_mechanism.h"

namespace rfsim::mech {

void registerMechanisms() {
  add(cars::carsMechanismInfo());
  add(ltrf::ltrfMechanismInfo());
  add(r2d2::r2d2MechanismInfo());
  add(regdem::regdemMechanismInfo());
  add(toy::toyMechanismInfo());
}

}  // namespace rfsim::mech
