// `rfsim demo`, the subcommand CARS adds to rfsim (mech/commands.h).
#pragma once

#include "mech/commands.h"

namespace rfsim::cars {

mech::Subcommand demoCommand();

}  // namespace rfsim::cars
