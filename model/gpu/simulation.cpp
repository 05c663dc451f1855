#include "gpu/simulation.h"

#include <fmt/format.h>

#include "common/error.h"
#include "gpu/gpu_top.h"
#include "mem/tlm/hierarchy.h"

namespace rfsim::gpu {

Simulation::Simulation() = default;

Simulation::~Simulation() {
  // The modules unregister from their own kernel, which must still exist.
  ScKernel::Scope in(kernel_);
  top_.reset();
}

GpuTop& Simulation::top(const config::GpuConfig& cfg) {
  ScKernel::Scope in(kernel_);
  if (!top_) {
    if (sc_core::sc_get_status() != sc_core::SC_ELABORATION)
      throw Error("this simulation's SystemC kernel was started before its GPU top was made");
    top_ = std::make_unique<GpuTop>("gpu", cfg);
  }
  GpuTop& top = *top_;
  const sc_core::sc_time period = clockPeriod(cfg);
  if (top.period() != period)
    throw Error(fmt::format("this simulation's GPU runs at a clock period of {}, the configuration asks for {} "
                            "(gpu.clock_mhz {}); one simulation is one chip",
                            top.period().to_string(), period.to_string(), cfg.gpu.clock_mhz));
  if (cfg.gpu.num_sms > top.numSlots())
    throw Error(fmt::format("this simulation's GPU was built with {} SMs, the configuration asks for {} "
                            "(gpu.num_sms); one simulation is one chip",
                            top.numSlots(), cfg.gpu.num_sms));
  if (!top.memory().sameShape(cfg))
    throw Error(fmt::format("this simulation's memory hierarchy has another shape than the configuration asks for "
                            "(l2.num_slices {}, dram.num_channels {}); one simulation is one chip",
                            cfg.l2.num_slices, cfg.dram.num_channels));
  top.memory().reconfigure(cfg);
  return top;
}

}  // namespace rfsim::gpu
