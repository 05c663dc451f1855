// The memory system as an SM's LDST unit sees it: one call per memory access
// of a warp instruction, answered with its latency. Implemented by
// mem::L1dMemory (the L1D and, behind it, the TLM-2.0 crossbar, L2 slices
// and DRAM) and by a fixed latency. The SM includes this header; the memory
// system includes nothing of the SM.
#pragma once

#include <cstdint>
#include <vector>

#include "func/stepper.h"

namespace rfsim::mem {

// The memory system as the LDST unit sees it: mem::L1dMemory (the L1D and,
// behind it, the TLM-2.0 crossbar, L2 slices and DRAM) or a fixed latency.
class MemoryInterface {
 public:
  virtual ~MemoryInterface() = default;
  // Cycles from the access entering the LDST unit to its data. `warp`: the
  // SM's warp slot that issued it (local memory is interleaved per warp).
  virtual uint64_t accessLatency(const func::MemAccess& a, uint32_t warp, uint64_t now) = 0;
  // Whether the last access's data came from beyond the L1D (a miss, a
  // request merged into a pending miss, a bypass): the two-level
  // scheduler's long wait with sm.long_wait l1d_miss. Without an L1D, yes.
  virtual bool lastMissed() const { return true; }

  // Deferred replies (sim.parallel_sms; mem/next_level.h): an access that
  // waits for a reply of the memory side does not know its latency until
  // the phase at the quantum's end. lastPending() is then the last access's
  // id (kNoPending: its latency is the one returned); after the phase,
  // resolve() appends every pending access's latency (from its `now`), in
  // the order they were made.
  static constexpr uint64_t kNoPending = UINT64_MAX;
  struct Resolved {
    uint64_t id;
    uint64_t latency;
  };
  virtual uint64_t lastPending() const { return kNoPending; }
  virtual void resolve(std::vector<Resolved>& out) { (void)out; }
};

class FixedLatencyMemory final : public MemoryInterface {
 public:
  explicit FixedLatencyMemory(uint64_t latency) : latency_(latency) {}
  uint64_t accessLatency(const func::MemAccess&, uint32_t, uint64_t) override { return latency_; }

 private:
  uint64_t latency_;
};

}  // namespace rfsim::mem
