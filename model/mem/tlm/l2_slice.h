// One L2 slice: a sectored cache (mem/cache.h) behind a tag/data port, in
// front of its DRAM channel. Timing-only, loosely timed: everything about a
// request is decided in its b_transport call.
//
// Timing of a request arriving at time a:
//  * port: a BusyQueue; the request occupies it max(1, ceil(bytes /
//    l2.bytes_per_cycle)) cycles; its lookup happens at t = start.
//  * pending fills whose time is <= t are drained into the cache first
//    (SectorCache::fill), so the cache state is the one at t.
//  * hit: ready at t + l2.latency (the hit latency covers the data read; the
//    crossbar charges the reply's serialisation).
//  * miss: detected at t + l2.latency; the missing sectors (fetch_mask) are
//    read from DRAM from then; the fill time F is recorded per sector (a
//    min-heap of pending fills, and per line each pending sector's F). The
//    reply is ready at the latest fill time of the sectors it asked for.
//  * hit reserved (merged into a pending miss): ready at the latest fill
//    time of its sectors (not before t + l2.latency).
//  * MSHR full (no entry, entry's merge limit, or every way of the set
//    waiting for a fill): the request waits for the earliest pending fill,
//    drains it and looks up again (another l2.latency); still full, it
//    bypasses the cache: a read goes to DRAM unallocated, a write is written
//    through to DRAM. Every lookup counts (as SectorCache's statistics).
//  * stores: write-back, write-allocate, whole sectors (never fetch); ready
//    at t + l2.latency (posted, nobody waits).
//  * atomics are performed here: looked up as a load (a miss fetches the
//    line's sectors from DRAM), then their sectors are marked dirty; ready
//    after the lookup, or at the fill on a miss.
//  * a dirty victim (AccessResult::writeback) is written to DRAM as a posted
//    write at t + l2.latency, after the demand fetch (reads first).
// Simplifications: the fill does not occupy the data port; the ALU time of
// an atomic is in l2.latency; MSHR retries wait for the slice's earliest
// fill even when another would free the resource; under loosely-timed
// simulation a request processed after a later one may find a fill already
// drained (it then hits), by at most the quantum.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <queue>
#include <unordered_map>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "config/gpu_config.h"
#include "mem/cache.h"
#include "mem/tlm/interconnect.h"  // AddressMap
#include "mem/tlm/payload.h"

namespace rfsim::mem {

class L2Slice final : public sc_core::sc_module {
 public:
  // Throws rfsim::Error when the slice's share of the L2 is not a valid
  // cache geometry (SectorCache's checks, named "L2 slice <index>").
  L2Slice(sc_core::sc_module_name name, uint32_t index, const config::GpuConfig& cfg);

  tlm_utils::simple_target_socket<L2Slice> from_icnt;
  tlm_utils::simple_initiator_socket<L2Slice> to_dram;

  // Counted by the slice (not SectorCache, whose statistics restart when
  // configure() rebuilds it); monotonic over the slice's life.
  struct Counters {
    std::array<KindCounters, kNumAccessKinds> by_kind{};
    uint64_t evictions = 0;   // valid lines replaced
    uint64_t sector_misses = 0;  // counted misses whose line was present (no line placed)
    uint64_t writebacks = 0;  // dirty victims written to DRAM
    uint64_t bypasses = 0;    // requests that went around the cache (MSHRs still full)
    uint64_t port_queue_ps = 0;
  };
  const Counters& counters() const { return c_; }

  // Rebuilds the cache from `cfg` (contents, MSHRs, pending fills and the
  // port are dropped; dirty data is discarded, not written back). Counters
  // are kept.
  void configure(const config::GpuConfig& cfg);
  void reset() { configure(cfg_); }

  const SectorCache& cache() const { return *cache_; }
  uint32_t index() const { return index_; }
  // The time the port is idle and every pending fill done (ps).
  uint64_t idleAfterPs() const;

  // Functional warming: the state a request for the sectors `mask` of the
  // line holding device address `addr` would leave in the cache (a miss
  // allocates and fills at once, a write dirties, a dirty victim's write-back
  // is dropped), with no time, queue, DRAM traffic or counter. After every
  // pending fill, in the order of the calls: how a launch's blocks run in the
  // functional model leave the L2 for the launches after it (docs/sampling.md).
  void warm(uint64_t addr, uint8_t mask, bool write);

  // The cache parameters of slice `index` under `cfg`.
  static CacheParams cacheParams(const config::GpuConfig& cfg, uint32_t index);

 private:
  struct Fill {
    uint64_t at;    // ps
    uint64_t line;  // slice-local byte address
    uint8_t sectors;
    bool operator>(const Fill& o) const { return at > o.at; }
  };

  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  uint64_t lookup(uint64_t addr, uint8_t mask, bool write, bool atomic, AccessKind kind, uint64_t t);
  AccessResult access(uint64_t local_addr, uint8_t mask, bool write, AccessKind kind, uint64_t t, bool counted);
  void drain(uint64_t t);
  uint64_t pendingUntil(uint64_t local_addr, uint8_t mask) const;
  uint64_t dram(tlm::tlm_command cmd, uint64_t addr, uint8_t mask, uint64_t at);

  uint32_t index_;
  config::GpuConfig cfg_;
  uint64_t period_ps_, latency_ps_ = 0, stamp_ps_ = 0;
  AddressMap map_;
  std::unique_ptr<SectorCache> cache_;
  BusyQueue port_;
  std::priority_queue<Fill, std::vector<Fill>, std::greater<Fill>> fills_;
  std::unordered_map<uint64_t, std::array<uint64_t, 8>> pending_;  // local line -> fill time per sector (0: none)
  tlm::tlm_generic_payload dram_gp_;
  std::array<unsigned char, 8 * kSectorBytes> scratch_{};
  uint64_t tag_ = 0;
  Counters c_;
};

}  // namespace rfsim::mem
