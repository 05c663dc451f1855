#include "mech/cars/cars_adaptive.h"

#include <fmt/format.h>

#include "common/error.h"

namespace rfsim::cars {

std::vector<uint32_t> adaptiveLevels(uint32_t low, uint32_t high) {
  std::vector<uint32_t> v;
  for (uint64_t l = low; l < high && l > 0; l *= 2) v.push_back(static_cast<uint32_t>(l));
  v.push_back(std::max(low, high));
  return v;
}

AdaptiveAllocation::AdaptiveAllocation(std::vector<uint32_t> levels, uint32_t num_sms, double hysteresis,
                                       const History* history)
    : sm_level_(num_sms, 0), hysteresis_(hysteresis) {
  if (levels.empty()) throw Error("CARS adaptive allocation: no levels");
  for (uint32_t r : levels) {
    Level l{r, 0, 0.0};
    if (history)
      if (auto it = history->find(r); it != history->end()) l.samples = it->second.samples, l.mean = it->second.mean;
    levels_.push_back(l);
  }
  const auto top = static_cast<uint32_t>(levels_.size() - 1);
  const std::optional<uint32_t> start = best();
  remembered_ = start.has_value();
  for (uint32_t s = 0; s < num_sms; ++s) sm_level_[s] = start ? *start : (s % 2 ? top : 0);
}

std::optional<uint32_t> AdaptiveAllocation::best() const {
  std::optional<uint32_t> b;
  for (uint32_t i = 0; i < levels_.size(); ++i)
    if (levels_[i].samples && (!b || levels_[i].mean > levels_[*b].mean)) b = i;
  return b;
}

AdaptiveAllocation::History AdaptiveAllocation::history(History h) const {
  for (const Level& l : levels_)
    if (l.samples) h[l.regs] = l;
  return h;
}

uint32_t AdaptiveAllocation::record(uint32_t sm, uint32_t level, double performance) {
  if (level >= levels_.size())
    throw Error(fmt::format("CARS adaptive allocation: a block of level {} of {}", level, levels_.size()));
  Level& l = levels_[level];
  ++l.samples;
  l.mean += (performance - l.mean) / static_cast<double>(l.samples);
  ++samples_;
  uint32_t& cur = sm_level_.at(sm);
  // The state machine runs once a block of low and one of high finished.
  if (!levels_.front().samples || !levels_.back().samples || !levels_[cur].samples) return cur;
  const std::optional<uint32_t> b = best();
  if (b && *b != cur && levels_[*b].mean > levels_[cur].mean * (1.0 + hysteresis_)) {
    cur = *b > cur ? cur + 1 : cur - 1;  // one step toward it
    ++steps_;
  }
  return cur;
}

}  // namespace rfsim::cars
