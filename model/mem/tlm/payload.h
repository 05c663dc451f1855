// What travels below the L1D (mem/tlm/): a tlm_generic_payload whose
// address is the line, whose length is the bytes the request moves
// (popcount(sector_mask) x 32) and whose data pointer is a scratch buffer
// nobody reads -- the model is timing-only, the functional model holds the
// data -- plus a MemExtension saying what the request is. Times inside the
// modules are integer picoseconds (deterministic; SystemC's default
// resolution), and every shared resource is a BusyQueue.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>

#include <systemc>
#include <tlm>

#include "config/gpu_config.h"
#include "mem/coalescer.h"  // AccessKind

namespace rfsim::mem {

constexpr uint32_t kSectorBytes = 32;  // Volta sector (Jia et al. 2018)

// Bytes moved by a request for `sector_mask`.
inline uint32_t sectorBytes(uint8_t sector_mask) {
  return static_cast<uint32_t>(__builtin_popcount(sector_mask)) * kSectorBytes;
}

// The request's identity beyond address, command and length. Atomics travel
// as TLM_WRITE_COMMAND with `atomic` set: they carry operands to the L2 and
// bring the old values back.
struct MemExtension final : tlm::tlm_extension<MemExtension> {
  uint8_t sector_mask = 0;
  AccessKind kind = AccessKind::Other;
  bool atomic = false;
  uint32_t sm = 0;

  tlm::tlm_extension_base* clone() const override { return new MemExtension(*this); }
  void copy_from(const tlm::tlm_extension_base& e) override { *this = static_cast<const MemExtension&>(e); }
};

// sc_time <-> integer picoseconds. The kernel's resolution must be 1 ps or
// finer (SystemC's default is 1 ps): MemoryHierarchy's constructor checks
// that unitsPerPs() is not zero.
inline uint64_t unitsPerPs() {
  static const uint64_t u = sc_core::sc_time(1, sc_core::SC_PS).value();
  return u;
}
inline uint64_t toPs(const sc_core::sc_time& t) { return t.value() / unitsPerPs(); }
inline sc_core::sc_time fromPs(uint64_t ps) { return sc_core::sc_time::from_value(ps * unitsPerPs()); }

// The core clock period in whole picoseconds, as sm::clockPeriod(cfg).
inline uint64_t corePeriodPs(const config::GpuConfig& cfg) {
  return static_cast<uint64_t>(std::llround(1e6 / cfg.gpu.clock_mhz));
}

inline uint64_t ceilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// Idle time a resource skipped because a request was stamped far beyond
// the quantum (an L1D that waited for a free MSHR sends its miss when a
// fill frees one; a reply is reserved for when the slice has its data):
// each gap of at least `min_gap_ps` is kept, and a request that arrives
// before the resource's busy time takes the first gap it fits in instead
// of queueing behind the late one. Shorter gaps are not kept, so ordering
// within a quantum stays the call order. Gaps that end before `horizon`
// (the simulation time of the call: no later request can arrive before it)
// are forgotten.
struct IdleGaps {
  uint64_t min_gap_ps = 0;  // 0: no gaps kept
  std::map<uint64_t, uint64_t> gaps;  // idle [start, end), each >= min_gap_ps

  void forget(uint64_t horizon) {
    while (!gaps.empty() && gaps.begin()->second <= horizon) gaps.erase(gaps.begin());
  }
  // The start of `dur` ps in the first gap that holds it from `arrival` on
  // (the gap is split around it), or UINT64_MAX when none does.
  uint64_t take(uint64_t arrival, uint64_t dur) {
    if (gaps.empty()) return UINT64_MAX;
    auto it = gaps.upper_bound(arrival);
    if (it != gaps.begin()) --it;
    for (; it != gaps.end(); ++it) {
      const uint64_t s = std::max(it->first, arrival), e = it->second, g0 = it->first;
      if (s + dur > e) continue;
      gaps.erase(it);
      keep(g0, s);
      keep(s + dur, e);
      return s;
    }
    return UINT64_MAX;
  }
  // [from, to) is left idle.
  void keep(uint64_t from, uint64_t to) {
    if (min_gap_ps && to >= from + min_gap_ps) gaps.emplace(from, to);
  }
};

// A resource that serves one request at a time for an occupancy (a crossbar
// port moving flits, a tag/data port): start = max(arrival, busy_until);
// busy_until = start + occupancy. Requests are served in the order the
// b_transport calls come, which under loosely-timed simulation is not
// always arrival order: a request from an SM further ahead in its quantum
// may take the resource before an earlier one (bounded by the quantum). A
// request stamped further ahead leaves the time it skips to earlier ones
// (IdleGaps).
struct BusyQueue {
  uint64_t busy_until = 0;  // ps
  IdleGaps idle;

  // Returns the start time.
  uint64_t reserve(uint64_t arrival, uint64_t occupancy, uint64_t horizon = 0) {
    idle.forget(horizon);
    if (arrival < busy_until) {
      const uint64_t s = idle.take(arrival, occupancy);
      if (s != UINT64_MAX) return s;
    } else {
      idle.keep(busy_until, arrival);
    }
    const uint64_t start = std::max(arrival, busy_until);
    busy_until = start + occupancy;
    return start;
  }
};

}  // namespace rfsim::mem
