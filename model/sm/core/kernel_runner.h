// Runs one kernel launch on ONE SM (multi-SM comes with the memory system):
// blocks are launched in grid order (x fastest) whenever the SM has room,
// and the SM is ticked until every block has retired.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "sm/core/sm.h"

namespace rfsim::sm {

struct KernelRunResult {
  uint64_t cycles = 0;
  uint64_t warp_instrs = 0;
  uint64_t blocks = 0;
  double host_seconds = 0.0;
};

class KernelRunner {
 public:
  // `regs_per_thread`: the back end's tree register count of the kernel.
  KernelRunner(const config::GpuConfig& cfg, func::Program& program, const func::LaunchSetup& setup,
               rt::LaunchStats& launch_stats, uint32_t regs_per_thread, stats::Group* stats_parent = nullptr);

  // Runs to completion; throws rfsim::Error from the functional model or
  // the SM's deadlock watchdog.
  KernelRunResult run();
  Sm& sm() { return sm_; }

 private:
  const func::LaunchSetup& setup_;
  Sm sm_;
};

}  // namespace rfsim::sm
