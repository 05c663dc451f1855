// CARS' adaptive register allocation (paper, section III-B, Fig. 5;
// docs/mechanisms.md), as a state machine over allocation levels that knows
// nothing of the SM: it is told each SM's measured epochs and answers with
// the level the SM's next blocks get.
//
// - Levels: registers per warp, ascending: low, 2 x low, 4 x low, ... while
//   below high, then high (the paper names only 2 x low; doubling is our
//   choice, so that a few steps span the range).
// - Start: a level remembered for the kernel from an earlier launch puts
//   every SM there; otherwise even SMs start at low and odd SMs at high.
// - Every epoch of an SM is one sample of its level's performance (a
//   running mean per level, over all SMs). After each sample the SM takes
//   one step toward the best level sampled so far, when that level beats
//   the SM's own by more than the hysteresis: once low and high have both
//   been sampled, the SMs on the worse side step toward the better one,
//   sampling the levels between, and keep hill-climbing while they run.
// - best(): the level with the highest mean, remembered for the kernel's
//   next launch by the caller.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace rfsim::cars {

// low, 2 x low, 4 x low, ... below high, then high; a single level when
// low >= high.
std::vector<uint32_t> adaptiveLevels(uint32_t low, uint32_t high);

class AdaptiveAllocation {
 public:
  struct Level {
    uint32_t regs = 0;     // registers per warp
    uint64_t samples = 0;  // epochs measured at this level
    double mean = 0.0;     // their mean performance
  };
  // `start`: a level index every SM starts at (a remembered best), or none.
  AdaptiveAllocation(std::vector<uint32_t> levels, uint32_t num_sms, double hysteresis,
                     std::optional<uint32_t> start = std::nullopt);

  uint32_t levelOf(uint32_t sm) const { return sm_level_.at(sm); }
  uint32_t regsOf(uint32_t sm) const { return levels_[sm_level_.at(sm)].regs; }
  // One epoch of `sm` at its level measured `performance` (higher is
  // better); returns the SM's level from now on.
  uint32_t record(uint32_t sm, double performance);
  // The sampled level with the highest mean, if any was sampled.
  std::optional<uint32_t> best() const;
  const std::vector<Level>& levels() const { return levels_; }
  uint64_t steps() const { return steps_; }      // level changes of SMs
  uint64_t epochs() const { return epochs_; }

 private:
  std::vector<Level> levels_;
  std::vector<uint32_t> sm_level_;
  double hysteresis_;
  uint64_t steps_ = 0, epochs_ = 0;
};

}  // namespace rfsim::cars
