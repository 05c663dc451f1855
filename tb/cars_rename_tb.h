// The random self-checking test bench of the CARS rename unit: random legal
// (and, at a set rate, malformed) operation sequences over many warps with
// renames on every port each cycle. Two oracles check every cycle: the
// lockstep comparison of RTL against the C++ reference, and the traffic's own
// shadow of each warp's frames (the scoreboard).
#pragma once

#include <cstdint>
#include <filesystem>

#include "mech/cars/call_traffic.h"
#include "mech/cars/rename_unit.h"

namespace rfsim::tb {

struct RandomResult {
  uint64_t cycles = 0;
  uint64_t ops = 0, acked = 0, overflows = 0, illegal = 0;
  uint64_t renames = 0, stacked_renames = 0;
  uint32_t max_depth = 0;
};

// Runs `cycles` cycles of traffic through `unit`; throws rfsim::Error (or
// CosimMismatch) on the first disagreement.
RandomResult runRandom(cars::RenameUnit& unit, const cars::TrafficParams& t, uint64_t cycles);

// The traffic the test bench uses: tight stacks so that overflows, full and
// empty stacks are frequent, and 1 % malformed operations.
cars::TrafficParams stressTraffic(uint32_t warps, uint64_t seed);

}  // namespace rfsim::tb
