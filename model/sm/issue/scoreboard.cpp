#include "sm/issue/scoreboard.h"

#include <string>

#include "common/error.h"

namespace rfsim::sm {

bool Scoreboard::hazard(uint32_t warp, const uint32_t* reads, uint32_t nreads, const uint32_t* writes,
                        uint32_t nwrites) const {
  return hazardOf(warp, reads, nreads, writes, nwrites);
}

void Scoreboard::reserve(uint32_t warp, const uint32_t* writes, uint32_t nwrites, bool long_latency) {
  auto& r = reserved_[warp];
  for (uint32_t i = 0; i < nwrites; ++i) {
    if (!tracked(writes[i])) continue;
    if (r.test(writes[i]))
      throw Error("scoreboard: warp " + std::to_string(warp) + " reserves " + ptx::mach::regName(writes[i]) +
                  ", which is already reserved (issued past a WAW hazard)");
    r.set(writes[i]);
    if (long_latency) long_[warp].set(writes[i]);
  }
  if (long_latency) ++long_pending_[warp];
  ++version_[warp];
  ++reserves_[warp];
}

void Scoreboard::release(uint32_t warp, const uint32_t* writes, uint32_t nwrites, bool long_latency) {
  auto& r = reserved_[warp];
  for (uint32_t i = 0; i < nwrites; ++i)
    if (tracked(writes[i])) {
      r.reset(writes[i]);
      long_[warp].reset(writes[i]);
    }
  if (long_latency && long_pending_[warp] > 0) --long_pending_[warp];
  ++version_[warp];
}

void Scoreboard::clear(uint32_t warp) {
  reserved_[warp].reset();
  long_[warp].reset();
  long_pending_[warp] = 0;
  ++version_[warp];
  ++reserves_[warp];
}

}  // namespace rfsim::sm
