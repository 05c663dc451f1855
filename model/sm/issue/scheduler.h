// Warp-scheduler policies as plug-ins. The SM tells a scheduler, each cycle,
// how far each of its warps got towards issue (WarpStatus); the policy picks
// the warp that issues, or reports why nothing did. The SM does not know the
// policies: it creates one by name from a SchedulerRegistry.
//
// Stall reasons, most specific first (the order in which the issue stage
// checks a warp; the reason reported for an idle cycle is that of the warp
// which got furthest):
//   UnitBusy > CollectorFull > Scoreboard > IbufferEmpty > Barrier > NoWarp
// i.e. a warp whose next instruction is decoded, free of hazards and holds a
// collector but finds its unit busy is the most specific reason; a scheduler
// with no warps at all reports NoWarp.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace rfsim::sm {

enum class Stall : uint8_t { None, NoWarp, Barrier, IbufferEmpty, Scoreboard, CollectorFull, UnitBusy, Count_ };
const char* stallName(Stall s);
// Precedence: a higher rank is more specific. None (ready) ranks above all.
inline int stallRank(Stall s) {
  switch (s) {
    case Stall::None: return 100;
    case Stall::UnitBusy: return 6;
    case Stall::CollectorFull: return 5;
    case Stall::Scoreboard: return 4;
    case Stall::IbufferEmpty: return 3;
    case Stall::Barrier: return 2;
    default: return 1;  // NoWarp
  }
}

// What the SM knows about one warp this cycle (indexed by warp id).
struct WarpStatus {
  Stall stall = Stall::NoWarp;  // None: its next instruction can issue now
  bool dual_ready = false;      // with dual issue: its next two instructions can issue together
  bool long_latency = false;    // its Scoreboard stall is a dependence on a long-latency op (Scoreboard::longHazardOf),
                                // its IbufferEmpty stall a fill from the L2 (FetchStage::waitsOnL2)
  uint32_t role = 0;            // the warp's role tag (sm/core/hooks.h, WarpLaunchHook): policies may favour roles
};

struct Pick {
  int32_t warp = -1;            // -1: nothing issues
  bool dual = false;            // issue the warp's next two instructions
  Stall stall = Stall::NoWarp;  // when warp == -1: why
};

// Scheduler activation callbacks (extension point (h), docs/sm.md): a
// policy with an active pool (two_level) tells the hook when a warp enters
// the pool and when it leaves it (demoted, or gone because it exited). A
// register-file cache prefetches the warp's working set on
// activation and writes it back on deactivation; the cycle onActivate
// returns is the first the warp may issue in (its prefetch is then done):
// until then the warp is held, reported as a Scoreboard stall. Policies
// without a pool (lrr, gto) never call it.
class ActivationHook {
 public:
  virtual ~ActivationHook() = default;
  virtual uint64_t onActivate(uint32_t warp, uint64_t now) = 0;
  virtual void onDeactivate(uint32_t warp, uint64_t now) { (void)warp, (void)now; }
};

struct SchedulerParams {
  uint32_t max_warps = 64;    // warp ids are < max_warps
  uint32_t active_warps = 2;  // two-level: active pool of this scheduler
  bool ready_first = true;    // two-level: ready pending warps are activated first (SmConfig::activate)
  bool barrier_demotes = true;  // two-level: a warp at a barrier leaves the pool (SmConfig::barrier_demotes)
  bool dual_issue = false;
};

class WarpScheduler {
 public:
  explicit WarpScheduler(const SchedulerParams& p);
  virtual ~WarpScheduler() = default;
  virtual const char* name() const = 0;

  // Warps assigned to this scheduler; `age` orders them oldest first (launch order).
  virtual void addWarp(uint32_t warp, uint64_t age);
  virtual void removeWarp(uint32_t warp);
  const std::vector<uint32_t>& warps() const { return warps_; }

  // One cycle (`now`): pick and count. `status` is indexed by warp id. The
  // picked warp is assumed to issue. `seen`, when the caller has it: the
  // stalls over warps(), one bit each (1 << Stall), None's bit set when
  // some warp is ready; gto and lrr then answer a cycle with no ready warp
  // from it, without looking at each warp again.
  static constexpr uint32_t kSeenUnknown = ~0u;
  Pick cycle(const WarpStatus* status, uint64_t now = 0, uint32_t seen = kSeenUnknown);

  // Extension point (h). Not owned; nullptr = none. Before the first warp.
  void setActivationHook(ActivationHook* h) { hook_ = h; }
  // The cycle until which warp `warp` is held by its activation (0: never held).
  uint64_t heldUntil(uint32_t warp) const { return hold_.empty() ? 0 : hold_[warp]; }
  // The first cycle after `now` at which a held warp of this scheduler is
  // released; UINT64_MAX when none is held (idle-cycle skipping).
  uint64_t nextRelease(uint64_t now) const;
  uint64_t activations() const { return activations_; }
  uint64_t deactivations() const { return deactivations_; }

  // A mechanism may ask for loose round robin for a while (while code of its
  // own runs in some warps that the others wait for): policies that are not
  // round robin (gto) honour it; the others are already.
  void setRoundRobin(bool on) { rr_ = on; }

  uint64_t issuedCycles() const { return issued_; }
  uint64_t dualIssues() const { return dual_; }
  uint64_t stallCycles(Stall s) const { return stalls_[static_cast<size_t>(s)]; }
  // `k` cycles in which nothing issued for reason `s`, skipped by the SM
  // because nothing could change in them (the policies' state depends only
  // on the warps' status, which is then frozen).
  void addStallCycles(Stall s, uint64_t k) { stalls_[static_cast<size_t>(s)] += k; }

 protected:
  virtual Pick pick(const WarpStatus* status) = 0;
  // The most specific stall over `ids`, or NoWarp when it is empty.
  static Stall mostSpecific(const std::vector<uint32_t>& ids, const WarpStatus* status);
  // The same over a set of stalls, one bit each (None's bit ignored).
  static Stall mostSpecificOf(uint32_t seen);
  // This cycle's `seen` (cycle()): whether it says no warp of warps() is
  // ready, and then their most specific stall.
  bool noneReady() const { return seen_ != kSeenUnknown && !(seen_ & 1u << static_cast<unsigned>(Stall::None)); }
  Stall seenStall() const { return mostSpecificOf(seen_); }
  Pick issue(uint32_t warp, const WarpStatus* status) const {
    return Pick{static_cast<int32_t>(warp), params_.dual_issue && status[warp].dual_ready, Stall::None};
  }
  uint64_t ageOf(uint32_t warp) const { return age_[warp]; }
  // Whether `warp` is among warps_ (addWarp, removeWarp).
  bool has(uint32_t warp) const { return member_[warp] != 0; }
  // Pool policies call these when a warp enters or leaves their active pool.
  void activated(uint32_t warp);
  void deactivated(uint32_t warp);
  // Held by its activation in this cycle: not to be picked.
  bool held(uint32_t warp) const { return !hold_.empty() && hold_[warp] > now_; }
  uint64_t now_ = 0;  // the cycle being scheduled
  uint32_t seen_ = kSeenUnknown;  // the cycle's `seen`
  bool rr_ = false;   // setRoundRobin

  SchedulerParams params_;
  std::vector<uint32_t> warps_;  // kept oldest first

 private:
  std::vector<uint64_t> age_;
  std::vector<uint8_t> member_;  // per warp id: in warps_
  ActivationHook* hook_ = nullptr;
  std::vector<uint64_t> hold_;  // per warp id, when a hook is installed
  uint64_t activations_ = 0, deactivations_ = 0;
  uint64_t issued_ = 0, dual_ = 0;
  std::array<uint64_t, static_cast<size_t>(Stall::Count_)> stalls_{};
};

// Policies by name. A new policy is registered here, never in the SM.
class SchedulerRegistry {
 public:
  using Factory = std::function<std::unique_ptr<WarpScheduler>(const SchedulerParams&)>;
  // lrr, gto, two_level.
  static SchedulerRegistry withBuiltins();
  void add(const std::string& name, Factory f) { factories_[name] = std::move(f); }
  bool has(const std::string& name) const { return factories_.count(name) != 0; }
  std::vector<std::string> names() const;
  // Throws rfsim::Error naming the known policies when `name` is unknown.
  std::unique_ptr<WarpScheduler> create(const std::string& name, const SchedulerParams& p) const;

 private:
  std::map<std::string, Factory> factories_;
};

// Warps are dealt to the schedulers of an SM round robin (GPGPU-Sim: warp % N).
inline uint32_t schedulerOf(uint32_t warp, uint32_t num_schedulers) { return warp % num_schedulers; }

// The built-in policies (scheduler_policies.cpp).
std::unique_ptr<WarpScheduler> makeLrr(const SchedulerParams& p);
std::unique_ptr<WarpScheduler> makeGto(const SchedulerParams& p);
std::unique_ptr<WarpScheduler> makeTwoLevel(const SchedulerParams& p);

}  // namespace rfsim::sm
