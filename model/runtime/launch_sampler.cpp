#include "runtime/launch_sampler.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace rfsim::rt {

namespace {

// Whether the values spread by at most `tol` of their mean.
template <class F>
bool agree(const std::deque<std::pair<uint64_t, uint64_t>>& w, double tol, F value, double* mean) {
  double lo = INFINITY, hi = 0.0, sum = 0.0;
  for (const auto& p : w) {
    const double v = value(p);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
  }
  *mean = sum / double(w.size());
  return hi - lo <= tol * *mean;
}

}  // namespace

LaunchSampler::LaunchSampler(const config::SimConfig& sim)
    : enabled_(sim.sample == config::SampleMode::Launches || sim.sample == config::SampleMode::All),
      window_(std::max<uint32_t>(2, sim.sample_window)),
      tolerance_(sim.sample_tolerance) {}

std::string LaunchSampler::key(const std::string& kernel, Dim3 grid, Dim3 block, uint32_t dynamic_shared,
                               const std::string& variant) {
  return fmt::format("{} {}x{}x{} {}x{}x{} {} {}", kernel, grid.x, grid.y, grid.z, block.x, block.y, block.z,
                     dynamic_shared, variant);
}

bool LaunchSampler::stable(const std::string& key) const {
  auto it = groups_.find(key);
  return enabled_ && it != groups_.end() && it->second.stable && it->second.since_check < it->second.check_after;
}

bool LaunchSampler::warming(const std::string& key) const {
  auto it = groups_.find(key);
  return enabled_ && it != groups_.end() && it->second.stable && it->second.since_check >= it->second.check_after &&
         !it->second.warmed;
}

const std::map<std::string, uint64_t>* LaunchSampler::trials(const std::string& trial_key) const {
  auto g = trial_group_.find(trial_key);
  if (!enabled_ || g == trial_group_.end() || !(stable(g->second) || warming(g->second))) return nullptr;
  return &trials_.at(trial_key);
}

void LaunchSampler::measuredTrials(const std::string& trial_key, const std::string& key,
                                   const std::map<std::string, uint64_t>& trial_cycles) {
  if (!enabled_) return;
  trials_[trial_key] = trial_cycles;
  trial_group_[trial_key] = key;
}

void LaunchSampler::detailed(const std::string& key, uint64_t cycles, uint64_t warp_instrs) {
  if (!enabled_) return;
  Group& g = groups_[key];
  if (g.stable) {  // a check of a stable group
    double mean_instrs = 0.0;
    for (const auto& p : g.window) mean_instrs += double(p.second) / double(g.window.size());
    const bool like = std::fabs(double(cycles) - g.mean_cycles) <= tolerance_ * g.mean_cycles &&
                      std::fabs(double(warp_instrs) - mean_instrs) <= tolerance_ * mean_instrs;
    g.since_check = 0;
    g.warmed = false;
    if (like) {
      g.check_after *= 2;
      g.window.emplace_back(cycles, warp_instrs);
      g.window.pop_front();
      g.mean_cycles = 0.0;
      for (const auto& p : g.window) g.mean_cycles += double(p.first) / double(g.window.size());
      return;
    }
    g.window.clear();  // another regime: a new window, from this launch on
    g.check_after = kFirstCheck;
  }
  g.window.emplace_back(cycles, warp_instrs);
  if (g.window.size() > window_) g.window.pop_front();
  g.stable = false;
  g.first_skipped = 0;
  g.since_check = 0;
  g.warmed = false;
  if (g.window.size() < window_) return;
  double mean_instrs = 0.0;
  const bool same_cycles = agree(g.window, tolerance_, [](const auto& p) { return double(p.first); }, &g.mean_cycles);
  const bool same_instrs = agree(g.window, tolerance_, [](const auto& p) { return double(p.second); }, &mean_instrs);
  g.stable = same_cycles && same_instrs && g.mean_cycles > 0;
}

uint64_t LaunchSampler::skipped(const std::string& key, uint64_t warp_instrs) {
  Group& g = groups_.at(key);
  ++g.since_check;
  if (g.first_skipped == 0) {
    g.first_skipped = std::max<uint64_t>(1, warp_instrs);
    return static_cast<uint64_t>(std::llround(g.mean_cycles));
  }
  const double ratio = double(warp_instrs) / double(g.first_skipped);
  // Not like the launches the window measured: the next one runs in detail.
  if (std::fabs(ratio - 1.0) > tolerance_) g.stable = false;
  return static_cast<uint64_t>(std::llround(g.mean_cycles * ratio));
}

uint64_t LaunchSampler::warmed(const std::string& key, uint64_t warp_instrs) {
  Group& g = groups_.at(key);
  g.warmed = true;
  // Its warp instructions are a detailed launch's, in the currency of the
  // window's (a skipped launch's are the base code's).
  double mean_instrs = 0.0;
  for (const auto& p : g.window) mean_instrs += double(p.second) / double(g.window.size());
  const double ratio = mean_instrs > 0.0 ? double(warp_instrs) / mean_instrs : 1.0;
  return static_cast<uint64_t>(std::llround(g.mean_cycles * ratio));
}

}  // namespace rfsim::rt
