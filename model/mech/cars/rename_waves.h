// The GTKWave view of the rename unit's waveform: the operation port, the
// rename ports and the register-stack state of the first warps, each a group.
#pragma once

#include <string>

#include "common/gtkw.h"
#include "mech/cars/rename_unit.h"

namespace rfsim::cars {

GtkwView renameWaveView(const RenameParams& p, const std::string& vcd, uint64_t start_cycle,
                        uint32_t warps_shown = 4);

}  // namespace rfsim::cars
