#include "sm/core/kernel_runner.h"

#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "common/error.h"
#include "sm/core/gpu_top.h"

namespace rfsim::sm {

const char* modeName(KernelRunner::Mode m) { return m == KernelRunner::Mode::SystemC ? "systemc" : "loop"; }

KernelRunner::KernelRunner(const config::GpuConfig& cfg, func::Program& program, const func::LaunchSetup& setup,
                           rt::LaunchStats& launch_stats, uint32_t regs_per_thread, stats::Group* stats_parent,
                           Mode mode)
    : cfg_(cfg),
      setup_(setup),
      mode_(mode),
      sm_(cfg, program, setup, launch_stats, regs_per_thread, stats_parent, "sm0") {}

KernelRunResult KernelRunner::run() {
  const auto t0 = std::chrono::steady_clock::now();
  const uint64_t cycles = mode_ == Mode::SystemC ? runSystemC() : runLoop();
  sm_.syncStats();
  KernelRunResult r;
  r.cycles = cycles;
  r.warp_instrs = sm_.stats().warp_instrs.get();
  r.blocks = setup_.grid.count();
  r.host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

uint64_t KernelRunner::runLoop() {
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
  return cycle;
}

uint64_t KernelRunner::runSystemC() {
  GpuTop& top = GpuTop::get(cfg_);
  SmSlot& slot = top.slot(0);
  slot.attach(sm_, setup_.grid);
  // The slot must not keep a pointer to this launch's Sm, whatever happens.
  struct Detach {
    SmSlot& s;
    ~Detach() {
      if (sc_core::sc_get_status() != sc_core::SC_RUNNING) s.detach();
    }
  } detach{slot};
  top.simulate();
  if (slot.failed()) std::rethrow_exception(slot.error());
  if (slot.running()) throw Error(fmt::format("{}: the simulation paused before the kernel ended", slot.name()));
  // Cycles as the clock measured them; SmSlot::finish() checked that they
  // agree with the number of ticks.
  const double c = (slot.endTime() - slot.startTime()) / top.period();
  return static_cast<uint64_t>(std::llround(c));
}

}  // namespace rfsim::sm
