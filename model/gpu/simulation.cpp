#include "gpu/simulation.h"

#include <fmt/format.h>

#include "common/error.h"
#include "gpu/gpu_top.h"
#include "mem/tlm/hierarchy.h"

namespace rfsim::gpu {

Simulation::Simulation(ExtraSmUnits extra) : extra_(std::move(extra)) {}

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
    top_ = std::make_unique<GpuTop>("gpu", cfg, extra_);
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

namespace {

// What the memory side's modules are, by name (mem/tlm/hierarchy.h).
void describeMemory(const std::string& base, nlohmann::json& e) {
  auto starts = [&](const char* p) { return base.rfind(p, 0) == 0; };
  if (base == "mem") {
    e["desc"] = "the memory hierarchy below the L1Ds (TLM-2.0)";
    e["stats"] = "gpu.mem";
  } else if (base == "icnt") {
    e["desc"] = "the crossbar between the SMs and the L2 slices";
    e["stats"] = "gpu.mem.icnt";
  } else if (starts("l2_slice")) {
    e["desc"] = "an L2 slice";
    e["stats"] = "gpu.mem.l2 (summed over the slices)";
  } else if (starts("dram")) {
    e["desc"] = "a DRAM channel";
    e["stats"] = "gpu.mem.dram (summed over the channels)";
  } else if (starts("sm_port")) {
    e["desc"] = "an SM's initiator port into the crossbar (behind its L1D)";
    e["stats"] = "gpu.l1d (summed over the SMs)";
  }
}

void walk(const sc_core::sc_object& o, nlohmann::json& out) {
  if (!dynamic_cast<const sc_core::sc_module*>(&o)) return;  // modules only (not sockets, events)
  nlohmann::json e = {{"name", o.name()}, {"kind", o.kind()}, {"desc", ""}, {"stats", ""}};
  if (dynamic_cast<const GpuTop*>(&o)) {
    e["desc"] = "the GPU: one slot per SM, the memory hierarchy; one SC_METHOD per TLM-2.0 quantum";
    e["stats"] = "gpu";
  } else if (const auto* s = dynamic_cast<const SmSlot*>(&o)) {
    e["desc"] = fmt::format("an SM slot (this one: SM {}): the launch's SM, ticked by the GPU's process", s->index());
    e["stats"] =
        "gpu.sm (summed over the SMs; per SM: gpu.sm_cycles, gpu.sm_blocks, gpu.sm_warp_instrs, gpu.sm_l1i_misses)";
  } else if (const auto* u = dynamic_cast<const SmUnitModule*>(&o)) {
    e["desc"] = u->info().desc;
    e["stats"] = u->info().stats;
  } else {
    describeMemory(o.basename(), e);
  }
  out.push_back(std::move(e));
  for (const sc_core::sc_object* c : o.get_child_objects()) walk(*c, out);
}

}  // namespace

nlohmann::json describeHierarchy(Simulation& sim, const config::GpuConfig& cfg) {
  GpuTop& top = sim.top(cfg);
  ScKernel::Scope in(sim.kernel());
  nlohmann::json out = nlohmann::json::array();
  walk(top, out);
  return out;
}

}  // namespace rfsim::gpu
