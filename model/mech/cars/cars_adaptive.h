// CARS' adaptive register allocation (paper, section III-B, Fig. 5;
// docs/mechanisms.md), as a state machine over allocation levels that knows
// nothing of the SM: it is told each finished thread block's measured
// performance and answers with the level the SM's next blocks get.
//
// - Levels: registers per warp, ascending: low, 2 x low, 4 x low, ... while
//   below high, then high (the paper names only 2 x low; doubling is our
//   choice, so that a few steps span the range).
// - Start (section III-B: "the best-performing allocation represents the
//   starting point for the next invocation of the same named kernel"): with
//   a history of the kernel, every SM starts at its best level; otherwise
//   even SMs start at low and odd SMs at high.
// - Samples ("After each thread block's execution, CARS records the
//   performance"): every finished block is one sample of the level it was
//   launched at, which the SM may have left since; a running mean per level,
//   over all SMs and over the kernel's earlier launches ("the average
//   performance of all executed flavors is remembered").
// - Moves ("Once one thread block from each of High- and Low-watermark is
//   complete, CARS begins employing a state machine"): from then on, after
//   each sample, the SM that finished the block takes one step toward the
//   best level sampled so far when that level's mean beats the mean of the
//   SM's own level by more than the hysteresis ("If the current selection
//   performs worse than the recorded performance of a higher or lower
//   allocation, the allocation policy is adjusted accordingly"); an SM whose
//   level has no finished block yet waits for one.
// - history(): the means to remember for the kernel's next launch.
#pragma once

#include <cstdint>
#include <map>
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
    uint64_t samples = 0;  // finished blocks measured at this level
    double mean = 0.0;     // their mean performance
  };
  // What a kernel's launches measured, by registers per warp (the levels of
  // a later launch may differ: the leftover rule follows the grid).
  using History = std::map<uint32_t, Level>;

  // `history`: the kernel's earlier launches, if any.
  AdaptiveAllocation(std::vector<uint32_t> levels, uint32_t num_sms, double hysteresis,
                     const History* history = nullptr);

  uint32_t levelOf(uint32_t sm) const { return sm_level_.at(sm); }
  uint32_t regsOf(uint32_t sm) const { return levels_[sm_level_.at(sm)].regs; }
  // A block of `sm` launched at `level` finished with `performance` (higher
  // is better); returns the SM's level from now on.
  uint32_t record(uint32_t sm, uint32_t level, double performance);
  // The sampled level with the highest mean, if any was sampled.
  std::optional<uint32_t> best() const;
  const std::vector<Level>& levels() const { return levels_; }
  // `history` (the kernel's earlier launches) with this launch's levels.
  History history(History history) const;
  bool remembered() const { return remembered_; }  // the SMs started at a history's best
  uint64_t steps() const { return steps_; }        // level changes of SMs
  uint64_t samples() const { return samples_; }    // blocks recorded in this launch

 private:
  std::vector<Level> levels_;
  std::vector<uint32_t> sm_level_;
  double hysteresis_;
  bool remembered_ = false;
  uint64_t steps_ = 0, samples_ = 0;
};

}  // namespace rfsim::cars
