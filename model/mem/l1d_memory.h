// The LD/ST unit's view of memory: a warp access is coalesced into 32-byte
// sectors of 128-byte lines (mem/coalescer.h) and each line request looks
// up the SM's sectored L1D (mem/cache.h). Behind the L1D is a NextLevel
// (mem/next_level.h): the TLM-2.0 crossbar, L2 slices and DRAM
// (mem/tlm/hierarchy.h), or a fixed latency.
//
// Timing of one warp access (the value accessLatency returns):
// - the L1D takes one line request per cycle (GPGPU-Sim's L1 port): the
//   requests of an access queue behind those of earlier accesses, so an
//   uncoalesced access (32 lines) holds the port for 32 cycles;
// - hit: l1d.latency; miss: the request leaves the L1D after l1d.latency
//   and its sectors are filled when the next level's reply arrives; a
//   request merged into a pending miss (hit reserved) waits for that fill;
// - MSHRs full (l1d.mshr_entries lines, l1d.mshr_merge requests each): the
//   request waits for the earliest pending fill and retries (counted in
//   mshr_full; this interface cannot refuse an access); still full (the
//   line's merge limit), a load bypasses the L1D;
// - stores (l1d.global_write / l1d.local_write): write-evict stores go on to
//   the next level, posted; write-back stores allocate, and dirty sectors
//   go to the next level when their line is evicted; a store costs
//   l1d.latency;
// - atomics are performed at the L2: the access waits for the reply.
// The access's latency is that of its last request.
//
// With deferred replies (sim.parallel_sms, mem/next_level.h) a request to
// the next level gets its reply cycle only at the quantum's end: the miss's
// fill is kept apart until then (a request merged into it waits for the
// same reply), the access's latency is pending (lastPending), and with the
// MSHRs full the wait is for the earliest fill whose reply is known: with
// none known (only this quantum's misses outstanding) the retry finds no
// room and a load bypasses the L1D, as at the merge limit. The result
// depends on this SM's requests only, never on another SM's in the quantum.
//
// Local memory: the functional model gives each lane its own local address
// space (func/memory.h); here a lane's local address becomes a physical
// one interleaved per warp as on NVIDIA GPUs (consecutive lanes'
// same-offset words are adjacent, so a warp's spill of a 4-byte register is
// one 128-byte line), in a region of its own per (SM, warp slot).
#pragma once

#include <cstdint>
#include <memory>
#include <queue>
#include <unordered_map>
#include <vector>

#include "config/gpu_config.h"
#include "mem/cache.h"
#include "mem/coalescer.h"
#include "mem/next_level.h"
#include "mem/memory_interface.h"

namespace rfsim::mem {

struct L1dCounters {
  std::array<uint64_t, kNumAccessKinds> requests{};  // line requests, per kind
  uint64_t next_reads = 0, next_writes = 0, next_atomics = 0;  // requests sent to the next level
  uint64_t writebacks = 0;         // dirty lines written back (local write-back)
  uint64_t port_wait_cycles = 0;   // cycles requests waited for the L1D port
  uint64_t mshr_wait_cycles = 0;   // cycles requests waited for an MSHR
  // Local accesses served by l1d.local_all_hit (ALL-HIT) without the cache,
  // per kind: counted as accesses and hits in the statistics.
  std::array<uint64_t, kNumAccessKinds> all_hits{};
};

class L1dMemory final : public MemoryInterface {
 public:
  // Behind the L1D: `next` (not owned). `sm_id` places this SM's local
  // memory.
  L1dMemory(const config::GpuConfig& cfg, NextLevel& next, uint32_t sm_id = 0);
  // Behind the L1D: a fixed latency (`next_latency` cycles to the fill).
  L1dMemory(const config::GpuConfig& cfg, uint64_t next_latency);

  uint64_t accessLatency(const func::MemAccess& a, uint32_t warp, uint64_t now) override;
  bool lastMissed() const override { return missed_; }
  uint64_t lastPending() const override { return last_pending_; }
  // After the memory side's phase (sendDeferred): this quantum's pending
  // fills become fills at their reply cycles, and the pending accesses'
  // latencies are appended to `out`.
  void resolve(std::vector<Resolved>& out) override;

  const SectorCache& cache() const { return l1d_; }
  const CacheStats& stats() const { return l1d_.stats(); }
  const L1dCounters& counters() const { return c_; }
  // Line requests the coalescer produced, per access kind.
  const std::array<uint64_t, kNumAccessKinds>& requests() const { return c_.requests; }
  // Share of L1D accesses that are local (spills, fills, stack): 40.4 % on
  // a V100 in Kang et al. §I.
  double localShare() const;

  // The physical address of lane `lane`'s local address `addr` for an
  // element of `span` bytes (exposed for tests).
  uint64_t localPhysical(uint32_t warp, uint32_t lane, uint64_t addr, uint32_t span) const;

 private:
  struct Fill {
    uint64_t at, line;
    uint8_t sectors;
    bool operator>(const Fill& o) const { return at > o.at; }
  };
  // Deferred replies: a miss whose reply is a token until the phase, and an
  // access waiting for tokens [begin, end) of access_tokens_.
  struct PendingFill {
    uint32_t token;
    uint64_t line;
    uint8_t sectors;
  };
  struct PendingAccess {
    uint64_t id, now, known;
    uint32_t begin, end;
  };
  void drainFills(uint64_t now);
  // The reply cycle of `q` leaving at `at`; deferred: `at` (the reply is
  // later), with the request's token appended to access_tokens_.
  uint64_t fetch(const MemRequest& q, uint64_t at, uint32_t* token = nullptr);
  void send(const LineRequest& r, uint64_t at, bool write, uint8_t mask, uint64_t line);

  const config::GpuConfig& cfg_;
  std::unique_ptr<NextLevel> own_next_;
  NextLevel* next_;
  uint32_t sm_id_;
  WritePolicy global_wp_, local_wp_;
  Coalescer coalescer_;
  SectorCache l1d_;
  RequestList reqs_;
  func::MemAccess phys_;  // a local access with physical addresses
  std::priority_queue<Fill, std::vector<Fill>, std::greater<Fill>> fills_;
  std::unordered_map<uint64_t, uint64_t> line_ready_;  // line -> its pending fill's cycle
  std::vector<PendingFill> pending_fills_;
  std::unordered_map<uint64_t, std::vector<uint32_t>> line_tokens_;  // line -> its pending fills' tokens
  std::vector<PendingAccess> pending_;
  std::vector<uint32_t> access_tokens_;
  uint64_t last_pending_ = kNoPending;
  uint64_t accesses_ = 0;  // ids of pending accesses
  uint64_t port_slot_ = 0;  // first free port slot: cycle x l1d.ports + the port
  bool missed_ = false;     // lastMissed()
  L1dCounters c_;
  uint64_t tag_ = 0;
};

}  // namespace rfsim::mem
