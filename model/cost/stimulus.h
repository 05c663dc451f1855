// A unit's inputs cycle by cycle, in named phases, for the gate-level energy
// estimate (cost/gate_energy.h). Written as a VCD: cycle c puts its inputs at
// time 2c x half-period with the clock low and raises the clock half a
// period later, so the flops take the inputs of the cycle they belong to.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rfsim::cost {

struct StimulusSignal {
  std::string name;  // an input port of the module
  uint32_t width = 1;  // at most 64
};

struct StimulusPhase {
  std::string name;       // "idle" must exist: it gives the clock's and the leakage-free idle energy
  uint64_t first = 0;     // first cycle
  uint64_t cycles = 0;
  uint64_t ops = 0;       // operations the phase carries (0 for idle)
};

struct Stimulus {
  std::string module;
  std::string clock = "clk_i";
  std::vector<StimulusSignal> signals;         // inputs other than the clock
  std::vector<std::vector<uint64_t>> cycles;   // per cycle, one value per signal
  std::vector<StimulusPhase> phases;

  void add(std::vector<uint64_t> values) { cycles.push_back(std::move(values)); }
  // The VCD text (time unit 1 ns; a cycle of `period_ns`).
  std::string toVcd(uint32_t period_ns) const;
};

}  // namespace rfsim::cost
