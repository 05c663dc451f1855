#include "sm/opcoll/banked_array.h"

#include <fmt/format.h>

#include "common/error.h"

namespace rfsim::sm {

BankedArray::BankedArray(uint32_t banks, uint32_t ports, uint32_t latency, uint32_t horizon)
    : banks_(banks), ports_(ports), latency_(latency), horizon_(horizon) {
  if (banks == 0 || ports == 0 || latency == 0 || horizon == 0)
    throw Error(fmt::format("banked array: banks ({}), ports ({}), latency ({}) and horizon ({}) must be at least 1",
                            banks, ports, latency, horizon));
  if (ports > kCountMask) throw Error(fmt::format("banked array: {} ports per bank (at most {})", ports, kCountMask));
  if ((horizon & (horizon - 1)) == 0) ring_mask_ = horizon - 1;
  slot_.assign(size_t(banks) * horizon, kEmpty);
  per_bank_.assign(banks, 0);
  after_.assign(banks, 0);
}

void BankedArray::checkBehind(uint32_t bank, uint64_t earliest) const {
  // A booking at cycle b reuses the slot of cycle b - horizon. Every booking
  // is below after_[bank], so those reused are below after_[bank] - horizon:
  // a request from there on meets none, and every booking at or after its
  // earliest cycle is within the horizon from it.
  if (after_[bank] - earliest > horizon_)
    throw Error(fmt::format("banked array: a request for bank {} at cycle {} is more than the ring's {} cycles behind "
                            "the bank's latest booking (cycle {})",
                            bank, earliest, horizon_, after_[bank] - 1));
}

uint64_t BankedArray::firstFree(uint32_t bank, uint64_t earliest) const {
  if (bank >= banks_) throw Error(fmt::format("banked array: bank {} of {}", bank, banks_));
  if (earliest >= after_[bank]) return earliest;  // nothing booked from there on
  checkBehind(bank, earliest);
  size_t slot = ring(earliest);  // stepped with c, wrapping (no division per cycle)
  for (uint64_t c = earliest; c < earliest + horizon_; ++c) {
    const size_t i = slot * banks_ + bank;
    if (++slot == horizon_) slot = 0;
    // A slot holds bookings of one cycle; an older cycle's are stale (free).
    const uint64_t s = slot_[i];
    if (s == kEmpty) return c;
    const uint64_t held = s >> kCountBits;
    if (held != c) {
      if (held > c) throw Error(fmt::format("banked array: bank {} is booked more than {} cycles ahead", bank, horizon_));
      return c;
    }
    if ((s & kCountMask) < ports_) return c;
  }
  throw Error(fmt::format("banked array: bank {} has no free port in the {} cycles from {}", bank, horizon_, earliest));
}

uint64_t BankedArray::accessBooked(uint32_t bank, uint64_t earliest) {
  const uint64_t c = firstFree(bank, earliest);
  if (c >> (64 - kCountBits)) throw Error(fmt::format("banked array: cycle {} beyond the slots' range", c));
  uint64_t& s = slot_[index(bank, c)];
  if (c >= after_[bank]) {
    s = (c << kCountBits) | 1;  // the slot's bookings, if any, are of an older cycle
    after_[bank] = c + 1;
  } else {
    if (s == kEmpty || (s >> kCountBits) != c) s = c << kCountBits;
    ++s;
  }
  ++accesses_;
  ++per_bank_[bank];
  if (c > earliest) {
    ++conflicts_;
    conflict_cycles_ += c - earliest;
  }
  return c + latency_;
}

}  // namespace rfsim::sm
