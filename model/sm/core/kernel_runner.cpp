#include "sm/core/kernel_runner.h"

#include <chrono>

namespace rfsim::sm {

KernelRunner::KernelRunner(const config::GpuConfig& cfg, func::Program& program, const func::LaunchSetup& setup,
                           rt::LaunchStats& launch_stats, uint32_t regs_per_thread, stats::Group* stats_parent)
    : setup_(setup), sm_(cfg, program, setup, launch_stats, regs_per_thread, stats_parent, "sm0") {}

KernelRunResult KernelRunner::run() {
  const auto t0 = std::chrono::steady_clock::now();
  const rt::Dim3 g = setup_.grid;
  const uint64_t total = g.count();
  uint64_t next = 0, cycle = 0;
  while (next < total || !sm_.idle()) {
    while (next < total && sm_.canLaunch()) {
      const rt::Dim3 c{static_cast<uint32_t>(next % g.x), static_cast<uint32_t>((next / g.x) % g.y),
                       static_cast<uint32_t>(next / (uint64_t(g.x) * g.y))};
      sm_.launch(c);
      ++next;
    }
    sm_.tick(cycle);
    ++cycle;
  }
  sm_.syncStats();
  KernelRunResult r;
  r.cycles = cycle;
  r.warp_instrs = sm_.stats().warp_instrs.get();
  r.blocks = total;
  r.host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace rfsim::sm
