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
                                       std::optional<uint32_t> start)
    : sm_level_(num_sms, 0), hysteresis_(hysteresis) {
  if (levels.empty()) throw Error("CARS adaptive allocation: no levels");
  for (uint32_t r : levels) levels_.push_back(Level{r, 0, 0.0});
  const auto top = static_cast<uint32_t>(levels_.size() - 1);
  if (start && *start > top)
    throw Error(fmt::format("CARS adaptive allocation: start level {} beyond the {} levels", *start, levels_.size()));
  for (uint32_t s = 0; s < num_sms; ++s) sm_level_[s] = start ? *start : (s % 2 ? top : 0);
}

std::optional<uint32_t> AdaptiveAllocation::best() const {
  std::optional<uint32_t> b;
  for (uint32_t i = 0; i < levels_.size(); ++i)
    if (levels_[i].samples && (!b || levels_[i].mean > levels_[*b].mean)) b = i;
  return b;
}

uint32_t AdaptiveAllocation::record(uint32_t sm, double performance) {
  uint32_t& cur = sm_level_.at(sm);
  Level& l = levels_[cur];
  ++l.samples;
  l.mean += (performance - l.mean) / static_cast<double>(l.samples);
  ++epochs_;
  const std::optional<uint32_t> b = best();
  if (b && *b != cur && levels_[*b].mean > l.mean * (1.0 + hysteresis_)) {
    cur = *b > cur ? cur + 1 : cur - 1;  // one step toward it
    ++steps_;
  }
  return cur;
}

}  // namespace rfsim::cars
