#include "mech/cars/cars_regions.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/error.h"

namespace rfsim::cars {

CarsRegions::CarsRegions(uint32_t rows, uint32_t frame, uint32_t stack, uint32_t num_warps, bool whole_blocks)
    : rows_(rows), frame_(frame), stack_(0), whole_blocks_(whole_blocks), owner_(num_warps, -1),
      stack_of_(num_warps, 0) {
  if (rows) free_[0] = rows;
  setStack(stack);
}

void CarsRegions::setStack(uint32_t stack) {
  if (frame_ + stack == 0 || frame_ + stack > rows_)
    throw Error(fmt::format("CARS: a warp's region of {} + {} registers does not fit the {} rows of the register file",
                            frame_, stack, rows_));
  stack_ = stack;
}

int64_t CarsRegions::find(uint32_t n) const {
  for (const auto& [start, len] : free_)
    if (len >= n) return start;
  return -1;
}

void CarsRegions::take(uint32_t start, uint32_t n) {
  auto it = free_.find(start);
  const uint32_t len = it->second;
  free_.erase(it);
  if (len > n) free_[start + n] = len - n;
}

bool CarsRegions::canLaunch(uint32_t num_warps, uint32_t) {
  if (!whole_blocks_ || resident_ == 0) return true;  // an empty SM always takes a block
  if (!stalled_.empty()) return false;
  // Would every warp of the block get a region now? First fit on a copy.
  std::map<uint32_t, uint32_t> f = free_;
  const uint32_t n = frame_ + stack_;
  for (uint32_t w = 0; w < num_warps; ++w) {
    auto it = std::find_if(f.begin(), f.end(), [n](const auto& r) { return r.second >= n; });
    if (it == f.end()) return false;
    const uint32_t start = it->first, len = it->second;
    f.erase(it);
    if (len > n) f[start + n] = len - n;
  }
  return true;
}

bool CarsRegions::allocate(uint32_t, uint32_t warp_slot, uint32_t, uint32_t, uint32_t& base) {
  stack_of_.at(warp_slot) = stack_;
  const uint32_t n = frame_ + stack_;
  const int64_t at = stalled_.empty() ? find(n) : -1;
  if (at < 0) {
    stalled_.push_back(warp_slot);
    ++stalled_warps;
    max_stalled = std::max<uint32_t>(max_stalled, static_cast<uint32_t>(stalled_.size()));
    base = kStalled;
    return true;
  }
  take(static_cast<uint32_t>(at), n);
  owner_[warp_slot] = at;
  base = static_cast<uint32_t>(at);
  max_resident = std::max(max_resident, ++resident_);
  return true;
}

void CarsRegions::release(uint32_t warp_slot) {
  const int64_t at = owner_.at(warp_slot);
  if (at < 0) {
    // A warp that never got registers cannot have run; drop it from the list.
    stalled_.erase(std::remove(stalled_.begin(), stalled_.end(), warp_slot), stalled_.end());
    return;
  }
  owner_[warp_slot] = -1;
  --resident_;
  // Give the run back and merge it with its free neighbours.
  uint32_t start = static_cast<uint32_t>(at), len = frame_ + stack_of_[warp_slot];
  auto next = free_.lower_bound(start);
  if (next != free_.end() && start + len == next->first) {
    len += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == start) {
      start = prev->first;
      len += prev->second;
      free_.erase(prev);
    }
  }
  free_[start] = len;
}

bool CarsRegions::grantStalled(uint32_t& warp_slot, uint32_t& base) {
  if (stalled_.empty()) return false;
  const uint32_t w = stalled_.front();
  const uint32_t n = frame_ + stack_of_[w];
  const int64_t at = find(n);
  if (at < 0) return false;
  stalled_.pop_front();
  take(static_cast<uint32_t>(at), n);
  owner_[w] = at;
  max_resident = std::max(max_resident, ++resident_);
  warp_slot = w;
  base = static_cast<uint32_t>(at);
  return true;
}

}  // namespace rfsim::cars
