#include "sm/opcoll/banked_array.h"

#include <fmt/format.h>

#include "common/error.h"

namespace rfsim::sm {

BankedArray::BankedArray(uint32_t banks, uint32_t ports, uint32_t latency, uint32_t horizon)
    : banks_(banks), ports_(ports), latency_(latency), horizon_(horizon) {
  if (banks == 0 || ports == 0 || latency == 0 || horizon == 0)
    throw Error(fmt::format("banked array: banks ({}), ports ({}), latency ({}) and horizon ({}) must be at least 1",
                            banks, ports, latency, horizon));
  cycle_.assign(size_t(banks) * horizon, UINT64_MAX);
  count_.assign(size_t(banks) * horizon, 0);
  per_bank_.assign(banks, 0);
}

uint64_t BankedArray::firstFree(uint32_t bank, uint64_t earliest) const {
  if (bank >= banks_) throw Error(fmt::format("banked array: bank {} of {}", bank, banks_));
  const size_t base = size_t(bank) * horizon_;
  for (uint64_t c = earliest; c < earliest + horizon_; ++c) {
    const size_t i = base + c % horizon_;
    // A slot holds bookings of cycle_[i]; an older cycle's are stale (free).
    if (cycle_[i] != c && cycle_[i] != UINT64_MAX && cycle_[i] > c)
      throw Error(fmt::format("banked array: bank {} is booked more than {} cycles ahead", bank, horizon_));
    if (cycle_[i] != c || count_[i] < ports_) return c;
  }
  throw Error(fmt::format("banked array: bank {} has no free port in the {} cycles from {}", bank, horizon_, earliest));
}

uint64_t BankedArray::access(uint32_t bank, uint64_t earliest) {
  const uint64_t c = firstFree(bank, earliest);
  const size_t i = size_t(bank) * horizon_ + c % horizon_;
  if (cycle_[i] != c) {
    cycle_[i] = c;
    count_[i] = 0;
  }
  ++count_[i];
  ++accesses_;
  ++per_bank_[bank];
  if (c > earliest) {
    ++conflicts_;
    conflict_cycles_ += c - earliest;
  }
  return c + latency_;
}

}  // namespace rfsim::sm
