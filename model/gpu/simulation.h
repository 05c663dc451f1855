// One simulated GPU: its own SystemC kernel (common/sc_kernel.h) and the
// GPU top in it (gpu_top.h: the SM slots and the memory hierarchy), made
// at the first timing launch with that launch's configuration. Whoever
// runs launches on one GPU owns one Simulation (rt::Device does; a
// KernelRunner given none makes its own for its launch): the L2's content
// and simulated time carry over from launch to launch within it, and
// nothing carries over between two of them, so two simulations in one
// process give the results they give in two processes.
#pragma once

#include <memory>

#include <nlohmann/json.hpp>

#include "common/sc_kernel.h"
#include "config/gpu_config.h"
#include "gpu/gpu_top.h"

namespace rfsim::gpu {

class Simulation {
 public:
  // `extra`: the units the enabled mechanisms add to each SM's hierarchy.
  explicit Simulation(ExtraSmUnits extra = {});
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  // The GPU top, made with `cfg`'s clock, SM count and memory hierarchy on
  // first use. Throws rfsim::Error when `cfg` does not fit the top made
  // earlier (another clock, more SMs, another L2 slice or DRAM channel
  // count: one simulation is one chip; make another Simulation for
  // another). Other memory parameters may change between launches (the
  // caches are then rebuilt, empty).
  GpuTop& top(const config::GpuConfig& cfg);
  bool hasTop() const { return top_ != nullptr; }

  // Everything that touches SystemC for this simulation runs inside one.
  ScKernel& kernel() { return kernel_; }

 private:
  ScKernel kernel_;
  ExtraSmUnits extra_;
  std::unique_ptr<GpuTop> top_;
};

// The module hierarchy of `sim`'s GPU (made with `cfg` if not yet): one
// entry per module, parents first, each {name, kind, desc, stats} with
// `stats` where its statistics are in a launch ("" for none). What
// `rfsim config --hierarchy` prints and a timing run writes to
// hierarchy.json.
nlohmann::json describeHierarchy(Simulation& sim, const config::GpuConfig& cfg);

}  // namespace rfsim::gpu
