#include "sm/issue/exec_unit.h"

#include <algorithm>
#include <limits>

#include "common/error.h"

namespace rfsim::sm {

ExecUnit::ExecUnit(uint32_t count, uint32_t capacity)
    : next_free_(count, 0), capacity_(capacity) {
  if (count == 0 || capacity == 0) throw Error("execution unit needs at least one pipeline and one slot");
  heap_.reserve(capacity);
}

bool ExecUnit::canAccept(uint64_t now) const {
  if (in_flight_ >= capacity_) return false;
  for (uint64_t f : next_free_)
    if (f <= now) return true;
  return false;
}

void ExecUnit::accept(uint64_t tag, uint64_t now, uint32_t latency, uint32_t ii) {
  uint64_t* pipe = nullptr;
  for (uint64_t& f : next_free_)
    if (f <= now) {
      pipe = &f;
      break;
    }
  if (pipe == nullptr || in_flight_ >= capacity_) throw Error("execution unit: accept() while busy");
  *pipe = now + (ii == 0 ? 1 : ii);
  heap_.push_back(Slot{latency == kUnknownLatency ? std::numeric_limits<uint64_t>::max() : now + latency, seq_++, tag});
  std::push_heap(heap_.begin(), heap_.end(), later);
  ++in_flight_;
}

void ExecUnit::resolve(uint64_t tag, uint64_t done) {
  for (Slot& s : heap_)
    if (s.tag == tag && s.done == std::numeric_limits<uint64_t>::max()) {
      s.done = done;
      std::make_heap(heap_.begin(), heap_.end(), later);
      return;
    }
  throw Error("execution unit: resolve() of an instruction not waiting for its latency");
}

uint64_t ExecUnit::popEarliest() {
  const uint64_t tag = heap_.front().tag;
  std::pop_heap(heap_.begin(), heap_.end(), later);
  heap_.pop_back();
  --in_flight_;
  return tag;
}

uint64_t ExecUnit::nextDone() const {
  return heap_.empty() ? std::numeric_limits<uint64_t>::max() : heap_.front().done;
}

}  // namespace rfsim::sm
