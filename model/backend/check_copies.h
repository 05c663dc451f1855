// The allocation checker's copy sets (check.cpp): the values a register
// holds at once.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

namespace rfsim::backend::checkdetail {

// A register may hold several values at once after a move whose source and
// destination the allocator put in the same register (biased colouring):
// `mov R22, R22` leaves R22 holding both. Such a register holds a copy-set
// token; a use expecting any member is satisfied, and paths meet by
// intersecting the sets.
constexpr uint32_t kCopyBase = 0x60000000u;
class CopySets {
 public:
  bool isSet(uint32_t t) const { return t >= kCopyBase && t - kCopyBase < sets_.size(); }
  std::vector<uint32_t> members(uint32_t t) const {
    return isSet(t) ? sets_[t - kCopyBase] : std::vector<uint32_t>{t};
  }
  bool holds(uint32_t t, uint32_t v) const {
    if (t == v) return true;
    if (!isSet(t)) return false;
    const auto& m = sets_[t - kCopyBase];
    return std::binary_search(m.begin(), m.end(), v);
  }
  uint32_t token(std::vector<uint32_t> m) {
    std::sort(m.begin(), m.end());
    m.erase(std::unique(m.begin(), m.end()), m.end());
    if (m.size() == 1) return m[0];
    auto it = ids_.find(m);
    if (it != ids_.end()) return it->second;
    const uint32_t t = kCopyBase + static_cast<uint32_t>(sets_.size());
    sets_.push_back(m);
    ids_.emplace(std::move(m), t);
    return t;
  }

 private:
  std::vector<std::vector<uint32_t>> sets_;
  std::map<std::vector<uint32_t>, uint32_t> ids_;
};

}  // namespace rfsim::backend::checkdetail
