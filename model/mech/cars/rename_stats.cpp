#include "mech/cars/rename_stats.h"

namespace rfsim::cars {

RenameStats::RenameStats(stats::Group* parent)
    : Group(parent, "rename", "CARS rename unit (RFP/RSP per warp, CARS section IV-B)"),
      ADD_STAT(cycles, stats::unit::Cycle, "cycles the unit was clocked"),
      ADD_STAT(ops, stats::unit::Count, "operations requested, by kind", 8,
               {"none", "launch", "call", "ret", "push", "pop", "spill", "fill"}),
      ADD_STAT(acked, stats::unit::Count, "operations applied"),
      ADD_STAT(overflow_traps, stats::unit::Count,
               "operations refused for lack of free stack registers (spill-trap condition)"),
      ADD_STAT(illegal, stats::unit::Count, "malformed operations refused (launch past the register file or counter, pop past the frame, spill past the stack)"),
      ADD_STAT(rfp_saves, stats::unit::Count, "caller RFPs written to the register file by calls"),
      ADD_STAT(renames, stats::unit::Count, "register indices translated"),
      ADD_STAT(stacked_renames, stats::unit::Count, "translations that landed in a register stack"),
      ADD_STAT(max_depth, stats::unit::Count, "deepest call chain seen on any warp"),
      ADD_STAT(stacked_share, stats::unit::Ratio, "share of translations that landed in a register stack",
               [this] { return renames.get() ? double(stacked_renames.get()) / double(renames.get()) : 0.0; }) {}

}  // namespace rfsim::cars
