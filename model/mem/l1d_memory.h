// The LD/ST unit's view of memory with an L1 data cache (issue 6, first
// step): a warp access is coalesced into 32-byte sectors of 128-byte lines
// (mem/coalescer.h) and each line request looks up the SM's sectored L1D
// (mem/cache.h). Behind the L1D, for now, is a fixed latency (the L2 hit
// latency, pipeline.mem_latency): the interconnect, L2 slices and DRAM over
// TLM-2.0 replace it behind the same miss path.
//
// Timing of one warp access (the value accessLatency returns):
// - the L1D takes one line request per cycle (GPGPU-Sim's L1 port): request
//   k of the access starts k cycles after the first;
// - hit: l1d.latency; miss: l1d.latency + the next level's latency, and the
//   line's sectors are filled then; a request merged into a pending miss
//   (hit reserved) waits for that fill;
// - MSHRs full: the request waits for the earliest pending fill and is then
//   a miss (this interface cannot refuse an access; counted in mshr_full);
// - stores: global stores are write-through/no-allocate with write-evict
//   (Volta L1), local stores (spills) are write-back/allocate; a store costs
//   l1d.latency (the write is posted).
// The access's latency is the last of its requests.
#pragma once

#include <cstdint>
#include <queue>
#include <vector>

#include "config/gpu_config.h"
#include "mem/cache.h"
#include "mem/coalescer.h"
#include "sm/core/sm.h"

namespace rfsim::mem {

class L1dMemory final : public sm::MemoryInterface {
 public:
  // `next_latency`: cycles from a miss leaving the L1D to its fill.
  L1dMemory(const config::GpuConfig& cfg, uint64_t next_latency);

  uint64_t accessLatency(const func::MemAccess& a, uint64_t now) override;

  const SectorCache& cache() const { return l1d_; }
  const CacheStats& stats() const { return l1d_.stats(); }
  // Line requests the coalescer produced, per access kind.
  const std::array<uint64_t, kNumAccessKinds>& requests() const { return requests_; }
  // Share of L1D accesses that are local (spills, fills, stack): CARS' 40 %.
  double localShare() const;

 private:
  struct Fill {
    uint64_t at, line;
    uint8_t sectors;
    bool operator>(const Fill& o) const { return at > o.at; }
  };
  void drainFills(uint64_t now);

  const config::GpuConfig& cfg_;
  uint64_t next_latency_;
  Coalescer coalescer_;
  SectorCache l1d_;
  RequestList reqs_;
  // Pending fills by time; a line's pending fill time, for merged requests.
  std::priority_queue<Fill, std::vector<Fill>, std::greater<Fill>> fills_;
  std::vector<std::pair<uint64_t, uint64_t>> line_ready_;  // (line, fill cycle), small
  std::array<uint64_t, kNumAccessKinds> requests_{};
  uint64_t tag_ = 0;
};

}  // namespace rfsim::mem
