// Idle-cycle skipping (sm.h, Sm::nextActiveCycle): after a quiet tick the
// SM's state is frozen until a unit completes, an I-buffer fill arrives or
// the watchdog is due; the caller may skip the cycles before that, and the
// next tick accounts for them in every per-cycle statistic.
#include <algorithm>

#include "sm/core/sm.h"

namespace rfsim::sm {

uint64_t Sm::nextActiveCycle(uint64_t cycle) const {
  if (!quiet_) return cycle;
  uint64_t next = last_progress_ + cfg_.pipeline.watchdog_cycles;  // the watchdog's tick
  next = std::min(next, exec_.nextDone());
  for (uint32_t s = 0; s < warps_.size(); ++s)
    if (warps_[s].used) {
      next = std::min(next, fetch_.fillAt(s));
      if (barriers_) next = std::min(next, deps_.nextEvent(s, last_tick_));  // a stall count runs out
    }
  if (hooks_.gate) next = std::min(next, hooks_.gate->nextEventCycle(last_tick_));
  if (!hooks_.baseAlloc()) next = std::min(next, hooks_.alloc->nextEventCycle(last_tick_));
  next = std::min(next, opc_->levelNextEvent(last_tick_));
  if (hooks_.activation)  // a warp held by its activation is released
    next = std::min(next, issue_.nextRelease(last_tick_));
  return std::max(cycle, next);
}

void Sm::accountSkipped(uint64_t k, uint64_t now) {
  stats_->cycles += k;
  if (resident_warps_) {
    stats_->active_cycles += k;
    stats_->resident_warps_sum += k * resident_warps_;
  }
  issue_.accountSkipped(k);
  opc_->skipCycles(k, now);
}

}  // namespace rfsim::sm
