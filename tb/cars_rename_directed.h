// Directed cases for the CARS rename unit with hand-computed answers: the
// R15/R16 boundary and the edge of the renamed window, empty and full stacks,
// exact-fit calls, overflow (the trap condition), malformed operations, nested
// frames and returns, and independence of warps. Each case runs on any
// RenameUnit, so the reference and the RTL face the same expectations.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mech/cars/rename_unit.h"

namespace rfsim::tb {

struct Expect {
  bool check_op = true;
  bool ack = false, overflow = false, illegal = false, save_valid = false;
  int64_t save_idx = -1, save_data = -1, restore_idx = -1;  // -1: don't care
  // (warp, Rx) -> physical index, stacked?
  struct Read {
    uint32_t warp, reg, idx;
    bool stacked;
  };
  std::vector<Read> reads;
  // State of a warp after the step's clock edge, checked on the next cycle.
  int64_t warp = -1;
  cars::WarpState after;
};

struct Step {
  std::string what;
  cars::OpRequest op;
  Expect expect;
};

// The directed cases for a unit of 64 warps x 2048 registers (5-bit free
// counters), as the paper sizes it.
std::vector<Step> directedSteps();

// Runs the steps; throws rfsim::Error naming the step and the field on the
// first difference. Returns the number of checks made.
uint64_t runDirected(cars::RenameUnit& unit, const std::vector<Step>& steps);

}  // namespace rfsim::tb
