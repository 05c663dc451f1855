// Runs one kernel launch on ONE SM (multi-SM comes with the memory system):
// blocks are launched in grid order (x fastest) whenever the SM has room,
// and the SM is ticked until every block has retired.
//
// Two ways to clock the SM, with identical cycles and statistics:
// - Mode::SystemC (the default): the Sm is attached to a slot of the
//   process's GpuTop (gpu_top.h) and ticked by its SC_METHOD on the SystemC
//   core clock; run() drives sc_start() until the slot is done. Any number
//   of launches may run one after the other in one process.
// - Mode::Loop: a plain C++ loop ticks the Sm, no SystemC involved (the
//   reference the SystemC mode is tested against, and a process that has
//   stopped its SystemC simulation can still use it).
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
  enum class Mode { SystemC, Loop };

  // `regs_per_thread`: the back end's tree register count of the kernel.
  KernelRunner(const config::GpuConfig& cfg, func::Program& program, const func::LaunchSetup& setup,
               rt::LaunchStats& launch_stats, uint32_t regs_per_thread, stats::Group* stats_parent = nullptr,
               Mode mode = Mode::SystemC);

  // Runs to completion; throws rfsim::Error from the functional model or
  // the SM's deadlock watchdog (in SystemC mode too, with its message, and
  // the next launch still runs).
  KernelRunResult run();
  Sm& sm() { return sm_; }
  Mode mode() const { return mode_; }

 private:
  uint64_t runLoop();
  uint64_t runSystemC();

  const config::GpuConfig& cfg_;
  const func::LaunchSetup& setup_;
  Mode mode_;
  Sm sm_;
};

const char* modeName(KernelRunner::Mode m);

}  // namespace rfsim::sm
