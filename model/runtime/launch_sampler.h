// Sampled simulation across launches (sim.sample: launches or all), in the
// style of Principal Kernel Analysis (Avalos Baddouh et al., MICRO 2021):
// launches of one kernel with the same grid, block, dynamic shared memory
// and chosen variant form a group; once the group's last sim.sample_window
// detailed launches agree, later launches of the group run functionally and
// take the cycles the detailed ones had.
//
// Agreement: the window's cycles and its warp instructions each spread by
// at most sim.sample_tolerance of their mean.
//
// A skipped launch runs the module's base code in the functional model
// (every variant computes the same values; CARS' and R2D2's codes need their
// hardware to run at all), so its warp instructions W are not in the
// currency of the detailed launches'. The first skipped launch of a stable
// group takes the window's mean cycles; each later one takes them scaled by
// its W over the first one's. A skipped launch whose W differs from the
// first one's by more than the tolerance ends the group's stable state: the
// next launch runs in detail again, and a new window must agree.
//
// Checks. A stable group still runs a launch in detail after 4 skipped
// launches, then after 8, 16, ... (the count doubles at each check that
// passes): the check passes when its cycles and warp instructions are within
// the tolerance of the window's means, and it then joins the window. One
// that does not ends the stable state, and a new window must agree, of
// launches from this one on. R2D2's r2_3dconv (large, 80 SMs) runs its
// first eight planes at 1 790 cycles a launch, with the input still in the
// L2, and the other 246 at 2 350: without checks its 250 launches after the
// first four were all credited 1 790 (-24 %).
//
// Warming before a check. The check's launch would meet the caches and DRAM
// the last detailed launch left, not those the skipped launches between
// would have left: r2_3dconv's check after four skipped planes ran 5 754
// cycles against the full run's 2 356, and was counted. So a check is
// preceded by one warming launch: it runs in detail on the device's caches
// (its statistics dropped, as a skipped launch's), is credited the window's
// mean cycles scaled by its warp instructions over the window's mean, and
// leaves the caches as a run in detail would (the detailed warming of
// SMARTS, Wunderlich et al., ISCA 2003). The launch after it is the check.
//
// Trials (a mechanism that measures variants per launch, RegDem's oracle)
// are not run for a launch of a stable group, its warming launch included
// (the check measures them again): the mechanism gets the trial
// cycles of the group's last detailed launch, so it decides as it did then.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>

#include "config/gpu_config.h"
#include "func/launch.h"

namespace rfsim::rt {

class LaunchSampler {
 public:
  explicit LaunchSampler(const config::SimConfig& sim);

  bool enabled() const { return enabled_; }

  // The group of a launch: kernel, grid, block, dynamic shared memory, and
  // the variant it runs ("" before the mechanisms chose: the trials' key).
  static std::string key(const std::string& kernel, Dim3 grid, Dim3 block, uint32_t dynamic_shared,
                         const std::string& variant);

  // Whether a launch of group `key` runs functionally (false for a stable
  // group's warming launch and check, which run in detail).
  bool stable(const std::string& key) const;
  // Whether a launch of group `key` is a stable group's warming launch.
  bool warming(const std::string& key) const;
  // The trial cycles of the last detailed launch of `trial_key`'s group,
  // when that group is stable or warming; nullptr otherwise.
  const std::map<std::string, uint64_t>* trials(const std::string& trial_key) const;

  // A launch of `key` ran in detail: its cycles and warp instructions.
  void detailed(const std::string& key, uint64_t cycles, uint64_t warp_instrs);
  // The trials measured (under `trial_key`) for a detailed launch of group `key`.
  void measuredTrials(const std::string& trial_key, const std::string& key,
                      const std::map<std::string, uint64_t>& trial_cycles);
  // A launch of stable group `key` ran functionally with `warp_instrs`:
  // the cycles it is credited with.
  uint64_t skipped(const std::string& key, uint64_t warp_instrs);
  // The warming launch of `key` ran in detail with `warp_instrs`: the
  // cycles it is credited with (the next launch is the check).
  uint64_t warmed(const std::string& key, uint64_t warp_instrs);

 private:
  struct Group {
    std::deque<std::pair<uint64_t, uint64_t>> window;  // (cycles, warp instructions) of the last detailed launches
    bool stable = false;
    double mean_cycles = 0.0;
    uint64_t first_skipped = 0;  // W of the first skipped launch since the group became stable
    uint64_t since_check = 0;    // launches skipped since it became stable or was last checked
    uint64_t check_after = kFirstCheck;
    bool warmed = false;         // the warming launch before the coming check ran
  };
  static constexpr uint64_t kFirstCheck = 4;
  bool enabled_;
  uint32_t window_;
  double tolerance_;
  std::map<std::string, Group> groups_;
  std::map<std::string, std::map<std::string, uint64_t>> trials_;  // by trial key
  std::map<std::string, std::string> trial_group_;                 // trial key -> the group its launch ran in
};

}  // namespace rfsim::rt
