// The built-in warp-scheduling policies.
#include <algorithm>

#include "sm/issue/scheduler.h"

namespace rfsim::sm {

namespace {

// Index in `ids` just after warp `last`, or 0 when `last` is not there.
size_t after(const std::vector<uint32_t>& ids, int32_t last) {
  for (size_t i = 0; i < ids.size(); ++i)
    if (static_cast<int32_t>(ids[i]) == last) return i + 1;
  return 0;
}

// Loose round robin over `ids`, starting after the warp that issued last,
// skipping the warps `skip` names.
template <class Skip>
int32_t roundRobin(const std::vector<uint32_t>& ids, int32_t last, const WarpStatus* status, Skip skip) {
  const size_t n = ids.size();
  const size_t start = after(ids, last);
  for (size_t k = 0; k < n; ++k) {
    const uint32_t w = ids[(start + k) % n];
    if (status[w].stall == Stall::None && !skip(w)) return static_cast<int32_t>(w);
  }
  return -1;
}
int32_t roundRobin(const std::vector<uint32_t>& ids, int32_t last, const WarpStatus* status) {
  return roundRobin(ids, last, status, [](uint32_t) { return false; });
}

// Loose round robin (GPGPU-Sim's lrr): every cycle the search for a ready
// warp starts one past the warp that issued last, in launch order.
class Lrr final : public WarpScheduler {
 public:
  using WarpScheduler::WarpScheduler;
  const char* name() const override { return "lrr"; }

 protected:
  Pick pick(const WarpStatus* status) override {
    if (noneReady()) return Pick{-1, false, seenStall()};
    const int32_t w = roundRobin(warps_, last_, status);
    if (w < 0) return Pick{-1, false, mostSpecific(warps_, status)};
    last_ = w;
    return issue(static_cast<uint32_t>(w), status);
  }

 private:
  int32_t last_ = -1;
};

// Greedy then oldest (Rogers et al. MICRO 2012; GPGPU-Sim's gto): keep
// issuing from the warp that issued last while it is ready, otherwise the
// oldest ready warp (launch order).
class Gto final : public WarpScheduler {
 public:
  using WarpScheduler::WarpScheduler;
  const char* name() const override { return "gto"; }

 protected:
  Pick pick(const WarpStatus* status) override {
    if (noneReady()) return Pick{-1, false, seenStall()};
    if (rr_) {  // setRoundRobin
      const int32_t w = roundRobin(warps_, last_, status);
      if (w < 0) return Pick{-1, false, mostSpecific(warps_, status)};
      last_ = w;
      return issue(static_cast<uint32_t>(w), status);
    }
    if (last_ >= 0 && status[last_].stall == Stall::None && has(static_cast<uint32_t>(last_)))
      return issue(static_cast<uint32_t>(last_), status);
    for (uint32_t w : warps_)  // oldest first
      if (status[w].stall == Stall::None) {
        last_ = static_cast<int32_t>(w);
        return issue(w, status);
      }
    return Pick{-1, false, mostSpecific(warps_, status)};
  }

 private:
  int32_t last_ = -1;
};

// Two-level (Gebhart et al. ISCA 2011; Narasiman et al. MICRO 2011): an
// active pool of at most K warps is scheduled loose round robin. A warp in
// the pool that waits on a long-latency operation (its next instruction
// depends on a global/local load, or is itself an instruction-cache miss
// on its way from the L2: WarpStatus::long_latency with a Scoreboard or
// IbufferEmpty stall), or at a barrier (whose other warps may all be
// pending), is demoted to the pending pool; a free slot
// is filled with the oldest pending warp that is ready, else the oldest
// pending warp that is not itself in such a wait. Idle cycles report the
// most specific stall of the active pool (of all warps when it is empty).
// SchedulerParams::ready_first and barrier_demotes change the last two
// choices (sm.activate, sm.barrier_demotes); what "long latency" means is
// the SM's (sm.long_wait: WarpStatus::long_latency).
class TwoLevel final : public WarpScheduler {
 public:
  explicit TwoLevel(const SchedulerParams& p) : WarpScheduler(p), in_pool_(p.max_warps, 0) {
    active_.reserve(p.max_warps);
  }
  const char* name() const override { return "two_level"; }

  void removeWarp(uint32_t warp) override {
    WarpScheduler::removeWarp(warp);
    if (isActive(warp)) {
      active_.erase(std::remove(active_.begin(), active_.end(), warp), active_.end());
      in_pool_[warp] = 0;
      deactivated(warp);
    }
  }
  const std::vector<uint32_t>& active() const { return active_; }

 protected:
  Pick pick(const WarpStatus* status) override {
    // Demote.
    active_.erase(std::remove_if(active_.begin(), active_.end(),
                                 [&](uint32_t w) {
                                   if (!longWait(status[w])) return false;
                                   in_pool_[w] = 0;
                                   deactivated(w);
                                   return true;
                                 }),
                  active_.end());
    // Promote, oldest first: ready warps, then warps in a short wait.
    // (Nothing to promote when every warp of the scheduler is in the pool.)
    for (int pass = params_.ready_first ? 0 : 1;
         pass < 2 && active_.size() < params_.active_warps && active_.size() < warps_.size(); ++pass)
      for (uint32_t w : warps_) {
        if (active_.size() >= params_.active_warps) break;
        if (isActive(w)) continue;
        const bool take = pass == 0 ? status[w].stall == Stall::None : !longWait(status[w]);
        if (take) {
          active_.push_back(w);
          in_pool_[w] = 1;
          activated(w);
        }
      }
    // A warp held by its activation (ActivationHook) is not picked.
    const int32_t w = roundRobin(active_, last_, status, [&](uint32_t x) { return held(x); });
    if (w < 0) {
      Stall why = mostSpecific(active_.empty() ? warps_ : active_, status);
      // A held warp waits for its working set: a Scoreboard stall.
      for (uint32_t a : active_)
        if (held(a) && stallRank(Stall::Scoreboard) > stallRank(why)) why = Stall::Scoreboard;
      return Pick{-1, false, why};
    }
    last_ = w;
    return issue(static_cast<uint32_t>(w), status);
  }

 private:
  bool longWait(const WarpStatus& s) const {
    return ((s.stall == Stall::Scoreboard || s.stall == Stall::IbufferEmpty) && s.long_latency) || (params_.barrier_demotes && s.stall == Stall::Barrier);
  }
  bool isActive(uint32_t w) const { return in_pool_[w] != 0; }

  std::vector<uint32_t> active_;  // in the order the warps entered the pool
  std::vector<uint8_t> in_pool_;  // per warp: 1 while it is in active_
  int32_t last_ = -1;
};

}  // namespace

std::unique_ptr<WarpScheduler> makeLrr(const SchedulerParams& p) { return std::make_unique<Lrr>(p); }
std::unique_ptr<WarpScheduler> makeGto(const SchedulerParams& p) { return std::make_unique<Gto>(p); }
std::unique_ptr<WarpScheduler> makeTwoLevel(const SchedulerParams& p) { return std::make_unique<TwoLevel>(p); }

}  // namespace rfsim::sm
