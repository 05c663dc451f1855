// Statistics of the CARS rename unit, counted from its ports each cycle.
#pragma once

#include "mech/cars/rename_unit.h"
#include "stats/stats.h"

namespace rfsim::cars {

struct RenameStats : stats::Group {
  explicit RenameStats(stats::Group* parent);

  // Counts one evaluated cycle.
  void record(const RenameParams& p, const Inputs& in, const Outputs& out) {
    ++cycles;
    if (in.op.valid) {
      ++ops[static_cast<size_t>(in.op.op)];
      if (out.ack) ++acked;
      if (out.overflow) ++overflow_traps;
      if (out.illegal) ++illegal;
      if (out.save_valid) ++rfp_saves;
    }
    renames += p.read_ports;
    for (uint32_t i = 0; i < p.read_ports; ++i) stacked_renames += out.rd_stacked[i];
  }

  stats::Scalar cycles;
  stats::Vector ops;
  stats::Scalar acked;
  stats::Scalar overflow_traps;
  stats::Scalar illegal;
  stats::Scalar rfp_saves;
  stats::Scalar renames;
  stats::Scalar stacked_renames;
  stats::Scalar max_depth;
  stats::Formula stacked_share;
};

}  // namespace rfsim::cars
