// The energy model's per-event energies and static powers (model/energy/).
// Every default names its source; docs/energy.md explains the choices.
#pragma once

#include <cstdint>

#include "config/gpu_config_fields.h"

namespace rfsim::config {

struct EnergyConfig {
  double regfile_read_pj = 14.2;   // R2D2 Table 1 (TITAN V): one warp-register read
  double regfile_write_pj = 20.9;  // R2D2 Table 1: one warp-register write

  template <class V> void visit(V& v) {
    v.real("regfile_read_pj", regfile_read_pj, RealRange{0.0, 1000.0}, "pJ", "energy of one warp-register read");
    v.real("regfile_write_pj", regfile_write_pj, RealRange{0.0, 1000.0}, "pJ", "energy of one warp-register write");
  }
};

}  // namespace rfsim::config
