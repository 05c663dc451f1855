#include "mech/cars/cars_regions.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/error.h"

namespace rfsim::cars {

CarsRegions::CarsRegions(uint32_t rows, uint32_t frame, uint32_t stack, uint32_t num_warps, bool whole_blocks,
                         bool rtl)
    : rows_(rows), frame_(frame), stack_(0), whole_blocks_(whole_blocks), owner_(num_warps, -1),
      stack_of_(num_warps, 0), block_of_(num_warps, 0), switched_(num_warps, false), list_(num_warps, rtl),
      live_(num_warps, 0) {
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
  if (!list_.empty()) return false;
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

bool CarsRegions::allocate(uint32_t block_slot, uint32_t warp_slot, uint32_t local_warp, uint32_t, uint32_t& base) {
  if (local_warp == 0 && arrived_) arrived_(block_slot);
  ++live_.at(block_slot);
  stack_of_.at(warp_slot) = stack_;
  block_of_[warp_slot] = block_slot;
  switched_[warp_slot] = false;
  const uint32_t n = frame_ + stack_;
  // Behind the stalled warps that can run (first come, first served); a
  // warp switched out at a closed barrier does not hold a newcomer back.
  const auto& listed = list_.entries();
  const bool queue = std::any_of(listed.begin(), listed.end(), [&](uint32_t w) { return !runnable_ || runnable_(w); });
  const int64_t at = queue ? -1 : find(n);
  if (at < 0) {
    list_.push(warp_slot);
    ++stalled_warps;
    max_stalled = std::max<uint32_t>(max_stalled, static_cast<uint32_t>(list_.size()));
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
  const uint32_t block = block_of_.at(warp_slot);
  if (live_.at(block) && --live_[block] == 0 && done_) done_(block);
  const int64_t at = owner_.at(warp_slot);
  if (at < 0) {
    // A warp that never got registers cannot have run; drop it from the list.
    const auto& listed = list_.entries();
    if (std::find(listed.begin(), listed.end(), warp_slot) != listed.end()) list_.remove(warp_slot);
    return;
  }
  owner_[warp_slot] = -1;
  --resident_;
  giveBack(static_cast<uint32_t>(at), frame_ + stack_of_[warp_slot]);
}

void CarsRegions::switchOut(uint32_t warp_slot) {
  const int64_t at = owner_.at(warp_slot);
  if (at < 0) throw Error(fmt::format("CARS: switch-out of warp slot {}, which holds no registers", warp_slot));
  owner_[warp_slot] = -1;
  --resident_;
  giveBack(static_cast<uint32_t>(at), frame_ + stack_of_[warp_slot]);
  switched_[warp_slot] = true;
  list_.push(warp_slot);
  max_stalled = std::max<uint32_t>(max_stalled, static_cast<uint32_t>(list_.size()));
}

uint32_t CarsRegions::runnableStalled(uint32_t block) const {
  uint32_t n = 0;
  for (uint32_t w : list_.entries()) n += block_of_[w] == block && (!runnable_ || runnable_(w));
  return n;
}

void CarsRegions::giveBack(uint32_t start, uint32_t len) {
  // Give the run back and merge it with its free neighbours.
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

bool CarsRegions::grantStalled(int64_t block, uint32_t& warp_slot, uint32_t& base, bool& restore) {
  // The oldest stalled warp that can run (of `block`, when given): a warp
  // switched out at a barrier that has not opened yet needs no registers.
  uint64_t elig = 0;
  for (uint32_t w : list_.entries())
    if ((block < 0 || block_of_[w] == block) && (!runnable_ || runnable_(w))) elig |= uint64_t{1} << w;
  // The warp status check selects; the allocator says whether its region fits.
  int64_t at = -1;
  const std::optional<uint32_t> granted = list_.release(elig, [&](uint32_t w) {
    at = find(frame_ + stack_of_[w]);
    return at >= 0;
  });
  if (!granted) return false;
  const uint32_t w = *granted;
  const uint32_t n = frame_ + stack_of_[w];
  restore = switched_[w];
  switched_[w] = false;
  take(static_cast<uint32_t>(at), n);
  owner_[w] = at;
  max_resident = std::max(max_resident, ++resident_);
  warp_slot = w;
  base = static_cast<uint32_t>(at);
  return true;
}

std::string CarsRegions::describe() const {
  std::string list;
  for (uint32_t w : list_.entries())
    list += fmt::format("{}slot {} (block slot {}{}{})", list.empty() ? "" : ", ", w, block_of_[w],
                        switched_[w] ? ", switched out at a barrier" : "",
                        runnable_ && !runnable_(w) ? ", waiting at a barrier" : "");
  uint32_t free = 0, largest = 0;
  for (const auto& [start, len] : free_) free += len, largest = std::max(largest, len);
  return fmt::format("CARS stalled-warp list [{}]; {} warps hold regions of {} + {} rows; {} rows free (largest run "
                     "{})",
                     list, resident_, frame_, stack_, free, largest);
}

}  // namespace rfsim::cars
