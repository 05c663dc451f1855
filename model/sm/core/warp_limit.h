// The static warp limit (sm.warp_limit; CCWS' static warp limiting): the
// `limit` oldest resident warps issue, the others wait until one of them
// exits -- or waits at a barrier: a warp held back must be able to reach the
// barrier its block waits at, or the block never gets past it. Part of the
// issue stage: the order by age is kept when a warp comes or goes
// (reorder), the mask of the warps that may issue is made every cycle
// (refresh) as warps reach and leave barriers.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace rfsim::sm {

class WarpLimit {
 public:
  explicit WarpLimit(uint32_t limit) : limit_(limit) {}
  bool on() const { return limit_ != 0; }
  // A warp came or went. `age(s, a)`: whether slot `s` of `nslots` holds a
  // warp, and its launch order `a`.
  template <class Age>
  void reorder(uint32_t nslots, Age age) {
    std::vector<std::pair<uint64_t, uint32_t>> by_age;
    uint64_t a = 0;
    for (uint32_t s = 0; s < nslots; ++s)
      if (age(s, a)) by_age.emplace_back(a, s);
    std::sort(by_age.begin(), by_age.end());
    order_.clear();
    for (const auto& p : by_age) order_.push_back(p.second);
  }
  // Every cycle, before issue. `waits(s)`: the warp in slot `s` waits at a
  // barrier (with no trap to run): it neither issues nor counts.
  template <class Waits>
  void refresh(Waits waits) {
    mask_ = 0;
    uint32_t n = 0;
    for (uint32_t s : order_) {
      if (n == limit_) break;
      if (waits(s)) continue;
      mask_ |= 1ull << s;
      ++n;
    }
  }
  // Whether the warp in slot `s` may issue this cycle.
  bool allows(uint32_t s) const { return mask_ >> s & 1; }

 private:
  uint32_t limit_;
  uint64_t mask_ = ~0ull;       // slots that may issue
  std::vector<uint32_t> order_;  // resident slots, oldest first
};

}  // namespace rfsim::sm
