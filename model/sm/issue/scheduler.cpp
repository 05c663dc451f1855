#include "sm/issue/scheduler.h"

#include <algorithm>

#include "common/error.h"

namespace rfsim::sm {

const char* stallName(Stall s) {
  switch (s) {
    case Stall::None: return "none";
    case Stall::NoWarp: return "no_warp";
    case Stall::Barrier: return "barrier";
    case Stall::IbufferEmpty: return "ibuffer_empty";
    case Stall::Scoreboard: return "scoreboard";
    case Stall::CollectorFull: return "collector_full";
    case Stall::UnitBusy: return "unit_busy";
    default: return "?";
  }
}

WarpScheduler::WarpScheduler(const SchedulerParams& p) : params_(p), age_(p.max_warps, 0), member_(p.max_warps, 0) {
  warps_.reserve(p.max_warps);
}

void WarpScheduler::addWarp(uint32_t warp, uint64_t age) {
  if (warp >= params_.max_warps) throw Error("warp scheduler: warp id " + std::to_string(warp) + " out of range");
  age_[warp] = age;
  auto pos = std::find_if(warps_.begin(), warps_.end(), [&](uint32_t w) { return age_[w] > age; });
  warps_.insert(pos, warp);
  member_[warp] = 1;
}

void WarpScheduler::removeWarp(uint32_t warp) {
  warps_.erase(std::remove(warps_.begin(), warps_.end(), warp), warps_.end());
  if (warp < member_.size()) member_[warp] = 0;
}

Stall WarpScheduler::mostSpecific(const std::vector<uint32_t>& ids, const WarpStatus* status) {
  // The stalls present, one bit each, then the highest ranked of them
  // (stallRank; a loop over the warps with the rank's switch was 3 % of
  // the host instructions on SGEMM).
  uint32_t seen = 0;
  for (uint32_t w : ids) seen |= uint32_t{1} << static_cast<unsigned>(status[w].stall);
  return mostSpecificOf(seen);
}

Stall WarpScheduler::mostSpecificOf(uint32_t seen) {
  static_assert(static_cast<unsigned>(Stall::Count_) <= 32);
  for (Stall s : {Stall::UnitBusy, Stall::CollectorFull, Stall::Scoreboard, Stall::IbufferEmpty, Stall::Barrier})
    if (seen & (uint32_t{1} << static_cast<unsigned>(s))) return s;
  return Stall::NoWarp;
}

void WarpScheduler::activated(uint32_t warp) {
  ++activations_;
  if (!hook_) return;
  if (hold_.empty()) hold_.assign(params_.max_warps, 0);
  hold_[warp] = hook_->onActivate(warp, now_);
}

void WarpScheduler::deactivated(uint32_t warp) {
  ++deactivations_;
  if (!hook_) return;
  if (!hold_.empty()) hold_[warp] = 0;
  hook_->onDeactivate(warp, now_);
}

uint64_t WarpScheduler::nextRelease(uint64_t now) const {
  uint64_t next = UINT64_MAX;
  if (hold_.empty()) return next;
  for (uint32_t w : warps_)
    if (hold_[w] > now) next = std::min(next, hold_[w]);
  return next;
}

Pick WarpScheduler::cycle(const WarpStatus* status, uint64_t now, uint32_t seen) {
  now_ = now;
  seen_ = seen;
  Pick p = pick(status);
  if (p.warp >= 0) {
    ++issued_;
    if (p.dual) ++dual_;
  } else {
    ++stalls_[static_cast<size_t>(p.stall)];
  }
  return p;
}

SchedulerRegistry SchedulerRegistry::withBuiltins() {
  SchedulerRegistry r;
  r.add("lrr", makeLrr);
  r.add("gto", makeGto);
  r.add("two_level", makeTwoLevel);
  return r;
}

std::vector<std::string> SchedulerRegistry::names() const {
  std::vector<std::string> n;
  for (const auto& [k, f] : factories_) n.push_back(k);
  return n;
}

std::unique_ptr<WarpScheduler> SchedulerRegistry::create(const std::string& name, const SchedulerParams& p) const {
  auto it = factories_.find(name);
  if (it == factories_.end()) {
    std::string known;
    for (const auto& n : names()) known += (known.empty() ? "" : ", ") + n;
    throw Error("unknown warp scheduling policy '" + name + "'; known: " + known);
  }
  return it->second(p);
}

}  // namespace rfsim::sm
