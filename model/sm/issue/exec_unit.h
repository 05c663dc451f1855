// One execution-unit type of an SM: `count` identical pipelines. A pipeline
// takes a new warp instruction every `ii` cycles and delivers it `latency`
// cycles after it was accepted. Allocation-free after construction: the
// in-flight slots are a fixed array.
#pragma once

#include <cstdint>
#include <vector>

namespace rfsim::sm {

class ExecUnit {
 public:
  // `capacity`: instructions in flight over all pipelines (e.g. count x
  // ceil(max latency / min ii)); accept() beyond it is refused by canAccept().
  ExecUnit(uint32_t count, uint32_t capacity);

  uint32_t count() const { return static_cast<uint32_t>(next_free_.size()); }
  uint32_t inFlight() const { return in_flight_; }

  // A pipeline is free at cycle `now` and there is a free slot.
  bool canAccept(uint64_t now) const;
  // Starts `tag` on the first free pipeline. Precondition: canAccept(now).
  // kUnknownLatency: due when resolve() says (a memory access whose reply
  // is deferred to the quantum's end, sim.parallel_sms).
  static constexpr uint32_t kUnknownLatency = UINT32_MAX;
  void accept(uint64_t tag, uint64_t now, uint32_t latency, uint32_t ii);
  // `tag`, accepted with kUnknownLatency, is due at cycle `done`.
  void resolve(uint64_t tag, uint64_t done);
  // Hands out one instruction due by `now` (the earliest due, ties in accept
  // order) and frees its slot; false when none is due. The test is inline:
  // it is asked for every unit every cycle, and mostly nothing is due.
  bool popDone(uint64_t now, uint64_t& tag) {
    if (heap_.empty() || heap_.front().done > now) return false;
    tag = popEarliest();
    return true;
  }
  // Cycle at which the earliest in-flight instruction is due (UINT64_MAX if none):
  // lets an idle SM sleep until then.
  uint64_t nextDone() const;

 private:
  // In flight: a binary min-heap on (done, seq) over storage reserved at
  // construction (popDone is called for every unit every cycle: O(1) when
  // nothing is due, O(log n) per instruction handed out).
  struct Slot {
    uint64_t done;
    uint64_t seq;
    uint64_t tag;
  };
  static bool later(const Slot& a, const Slot& b) { return a.done != b.done ? a.done > b.done : a.seq > b.seq; }
  // Removes the earliest slot; its tag.
  uint64_t popEarliest();
  std::vector<uint64_t> next_free_;  // per pipeline: first cycle it accepts again
  std::vector<Slot> heap_;
  uint32_t capacity_;
  uint32_t in_flight_ = 0;
  uint64_t seq_ = 0;
};

}  // namespace rfsim::sm
