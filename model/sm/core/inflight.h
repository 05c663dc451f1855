// The instructions in flight between issue and write-back. The issue stage
// allocates an entry and hands its tag to the operand collector; the tag
// travels through dispatch, the execution unit and the write-back queue,
// each stage reading the entry by it, and write-back frees it.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "func/decode.h"
#include "ptx/machine.h"
#include "sm/core/trap_queue.h"
#include "sm/unit_type.h"

namespace rfsim::sm {

struct Inflight {
  uint32_t slot = 0, pc = 0;
  const func::DInstr* d = nullptr;
  UnitType unit = UnitType::SP;
  uint32_t exec_latency = 1, ii = 1;
  bool writes = false, long_latency = false, mem = false;
  bool scalar = false;  // executes on the scalar pipeline (InstrObserver::scalar)
  bool fma_ok = false;  // pipeline.int_add_on_fma: may dispatch to the FP32 unit when its INT unit is busy
  uint8_t written = 0;  // destination registers already written back (a write split over cycles)
  bool rows_known = false;  // wrow holds the destinations' rows, translated at issue
  std::array<uint32_t, 16> wrow{};
  const TrapQueue::Entry* trap = nullptr;  // a trap operation (Sm::trap)
  uint8_t wbar = 0, rbar = 0;       // dependency barriers it set (1..6; 0: none)
  // Deferred replies (Sm::resolveMemory): the memory access whose latency
  // is not known yet (MemoryInterface::lastPending; kNoPending: none), the
  // latency added to it (InstrObserver::addedLatency), and the cycle it was
  // dispatched to its unit (kNotDispatched: not yet).
  static constexpr uint64_t kNoPending = UINT64_MAX, kNotDispatched = UINT64_MAX;
  uint64_t pending_access = kNoPending;
  uint32_t pending_extra = 0;
  uint64_t dispatched_at = kNotDispatched;
};

// The cycles an execution unit holds an instruction of `latency` cycles
// from issue to its result (sm.h: the stages before and after it take
// kStageOverhead), before a mechanism's stage ahead of the collector.
inline uint32_t execLatency(uint64_t latency, uint32_t stage_overhead) {
  return static_cast<uint32_t>(latency > stage_overhead ? latency - stage_overhead : 1);
}

class InflightTable {
 public:
  // A free entry's tag (entries are reused: the caller sets every field).
  uint32_t alloc() {
    ++count_;
    if (!free_.empty()) {
      const uint32_t t = free_.back();
      free_.pop_back();
      return t;
    }
    v_.emplace_back();
    return static_cast<uint32_t>(v_.size() - 1);
  }
  void free(uint32_t tag) {
    free_.push_back(tag);
    --count_;
  }
  // Valid until the next alloc.
  Inflight& operator[](uint64_t tag) { return v_[tag]; }
  const Inflight& operator[](uint64_t tag) const { return v_[tag]; }
  // Entries allocated and not freed.
  uint32_t count() const { return count_; }
  // Entries ever made (tags 0 .. size() - 1, free or not).
  uint32_t size() const { return static_cast<uint32_t>(v_.size()); }

 private:
  std::vector<Inflight> v_;
  std::vector<uint32_t> free_;
  uint32_t count_ = 0;
};

// The register ids of `in[0..n)` that go through the banked register file
// (general and extension-class registers; predicates do not), at most `max`.
inline unsigned bankRegs(const uint16_t* in, unsigned n, uint16_t* out, unsigned max) {
  unsigned k = 0;
  for (unsigned i = 0; i < n && k < max; ++i)
    if (ptx::mach::isRowReg(in[i])) out[k++] = in[i];
  return k;
}

}  // namespace rfsim::sm
