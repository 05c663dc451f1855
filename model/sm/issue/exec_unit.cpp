#include "sm/issue/exec_unit.h"

#include <limits>

#include "common/error.h"

namespace rfsim::sm {

ExecUnit::ExecUnit(uint32_t count, uint32_t capacity)
    : next_free_(count, 0), slots_(capacity, Slot{0, 0, 0, false}) {
  if (count == 0 || capacity == 0) throw Error("execution unit needs at least one pipeline and one slot");
}

bool ExecUnit::canAccept(uint64_t now) const {
  if (in_flight_ >= slots_.size()) return false;
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
  if (pipe == nullptr || in_flight_ >= slots_.size()) throw Error("execution unit: accept() while busy");
  *pipe = now + (ii == 0 ? 1 : ii);
  for (Slot& s : slots_)
    if (!s.busy) {
      s = Slot{now + latency, seq_++, tag, true};
      ++in_flight_;
      return;
    }
}

bool ExecUnit::popDone(uint64_t now, uint64_t& tag) {
  Slot* best = nullptr;
  for (Slot& s : slots_)
    if (s.busy && s.done <= now && (best == nullptr || s.done < best->done || (s.done == best->done && s.seq < best->seq)))
      best = &s;
  if (best == nullptr) return false;
  tag = best->tag;
  best->busy = false;
  --in_flight_;
  return true;
}

uint64_t ExecUnit::nextDone() const {
  uint64_t t = std::numeric_limits<uint64_t>::max();
  for (const Slot& s : slots_)
    if (s.busy && s.done < t) t = s.done;
  return t;
}

}  // namespace rfsim::sm
