// Pieces the SM's own files share (sm.cpp, issue_stage.cpp, writeback_stage.cpp); not an interface
// for other units.
#pragma once

#include <cstdint>
#include <cstdio>

#include <fmt/format.h>

// One line per pipeline event of the traced warp slot (Sm::setTraceSlot).
#define RFSIM_SM_TRACE_EV(slot, fmtstr, ...)                                                   \
  do {                                                                                         \
    if (static_cast<int64_t>(slot) == trace_slot_)                                             \
      fmt::print(stderr, "sm-trace {:>8} slot {} " fmtstr "\n", now, slot, __VA_ARGS__);     \
  } while (0)
