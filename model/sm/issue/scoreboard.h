// Per-warp scoreboard over the physical registers of a machine program
// (ptx/machine.h: R0..R254 = ids 0..254, RZ = 255, P0..P6 = 256..262).
// A destination is reserved at issue and released at write-back; an
// instruction may issue when none of its sources (RAW) or destinations (WAW)
// is reserved. RZ and kNoReg are never reserved. It also knows which
// reservations belong to long-latency operations (global/local loads) and
// counts each warp's outstanding ones: the two-level scheduler demotes a
// warp whose next instruction depends on one (Gebhart et al. ISCA 2011).
#pragma once

#include <bitset>
#include <cstdint>
#include <vector>

#include "ptx/machine.h"

namespace rfsim::sm {

class Scoreboard {
 public:
  explicit Scoreboard(uint32_t num_warps)
      : reserved_(num_warps), long_(num_warps), long_pending_(num_warps, 0), version_(num_warps, 0),
        reserves_(num_warps, 0) {}

  uint32_t numWarps() const { return static_cast<uint32_t>(reserved_.size()); }

  // True when any read is reserved (RAW) or any write is reserved (WAW).
  bool hazard(uint32_t warp, const uint32_t* reads, uint32_t nreads, const uint32_t* writes,
              uint32_t nwrites) const;
  // The same over any integer register list (the decoded instruction's
  // uint16_t reads/writes), without copying it.
  template <class R>
  bool hazardOf(uint32_t warp, const R* reads, uint32_t nreads, const R* writes, uint32_t nwrites) const {
    const auto& r = reserved_[warp];
    for (uint32_t i = 0; i < nreads; ++i)
      if (tracked(reads[i]) && r.test(reads[i])) return true;
    for (uint32_t i = 0; i < nwrites; ++i)
      if (tracked(writes[i]) && r.test(writes[i])) return true;
    return false;
  }
  bool reserved(uint32_t warp, uint32_t reg) const { return tracked(reg) && reserved_[warp].test(reg); }
  // True when a read or write is reserved by a long-latency operation: the
  // hazard is a dependence on a long-latency operation, not on a short one.
  template <class R>
  bool longHazardOf(uint32_t warp, const R* reads, uint32_t nreads, const R* writes, uint32_t nwrites) const {
    const auto& r = long_[warp];
    if (r.none()) return false;
    for (uint32_t i = 0; i < nreads; ++i)
      if (tracked(reads[i]) && r.test(reads[i])) return true;
    for (uint32_t i = 0; i < nwrites; ++i)
      if (tracked(writes[i]) && r.test(writes[i])) return true;
    return false;
  }

  // At issue: reserve the destinations; a long-latency op also counts one
  // pending operation of the warp. Reserving a reserved register is a bug of
  // the caller (it issued past a WAW hazard) and throws.
  void reserve(uint32_t warp, const uint32_t* writes, uint32_t nwrites, bool long_latency = false);
  // At write-back: release them (and end the long-latency op).
  void release(uint32_t warp, const uint32_t* writes, uint32_t nwrites, bool long_latency = false);

  uint32_t pendingLongLatency(uint32_t warp) const { return long_pending_[warp]; }
  uint32_t reservedCount(uint32_t warp) const { return static_cast<uint32_t>(reserved_[warp].count()); }
  // A warp leaves the SM (or a new one takes its slot): forget everything.
  void clear(uint32_t warp);
  // Changes with every reserve, release and clear of the warp: a hazard
  // found at one version holds while the version stays.
  uint32_t version(uint32_t warp) const { return version_[warp]; }
  // Changes with every reserve and clear of the warp, the changes that may
  // add a hazard: no hazard found at one such version holds while it stays
  // (a release only removes them).
  uint32_t reserveVersion(uint32_t warp) const { return reserves_[warp]; }

 private:
  static bool tracked(uint32_t reg) { return reg < ptx::mach::kNumRegIds && reg != ptx::mach::kRZ; }

  std::vector<std::bitset<ptx::mach::kNumRegIds>> reserved_;
  std::vector<std::bitset<ptx::mach::kNumRegIds>> long_;  // the reservations of long-latency operations
  std::vector<uint32_t> long_pending_;
  std::vector<uint32_t> version_;
  std::vector<uint32_t> reserves_;
};

}  // namespace rfsim::sm
