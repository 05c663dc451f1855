// The rename-unit demo: a SystemC clock drives one SC_METHOD that, each cycle,
// takes the call/return traffic's inputs, evaluates the rename unit (the C++
// reference, or reference and Verilated RTL in lockstep), checks the outcome
// against the traffic's shadow, and clocks the unit.
#pragma once

#include <exception>
#include <filesystem>
#include <memory>

#include <nlohmann/json.hpp>
#include <systemc>

#include "config/gpu_config.h"
#include "mech/cars/call_traffic.h"
#include "mech/cars/rename_lockstep.h"
#include "mech/cars/rename_stats.h"

namespace rfsim::cars {

struct DemoOptions {
  bool rtl = true;
  std::filesystem::path vcd;  // empty: no waveform
  uint64_t trace_start = 0;
  uint64_t trace_cycles = 0;
  std::string source = "demo";  // where the configuration came from, for messages
};

struct DemoResult {
  uint64_t cycles = 0;
  double host_seconds = 0.0;
  uint64_t rtl_comparisons = 0;
  nlohmann::json stats;  // the whole tree under `root`, taken before the demo is torn down
  nlohmann::json flat;   // the same as {"sim.rename.cycles": value, ...}
};

// The unit parameters a configuration asks for.
RenameParams paramsFor(const config::GpuConfig& cfg);
TrafficParams trafficFor(const config::GpuConfig& cfg);

class RenameDemo : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(RenameDemo);
  RenameDemo(sc_core::sc_module_name name, const config::GpuConfig& cfg, const DemoOptions& opt,
             stats::Group* parent);

  sc_core::sc_in<bool> clk;

  // Rethrows what a clocked step threw (SystemC would otherwise turn it into
  // a report and lose its type).
  void rethrow() const {
    if (error_) std::rethrow_exception(error_);
  }
  uint64_t cycles() const { return cycles_; }
  uint64_t comparisons() const { return lockstep_ ? lockstep_->comparisons() : 0; }

 private:
  void step();

  uint64_t limit_;
  std::unique_ptr<RenameUnit> unit_;
  RenameLockstep* lockstep_ = nullptr;
  CallTraffic traffic_;
  RenameStats stats_;
  Inputs in_;
  Outputs out_;
  uint64_t cycles_ = 0;
  std::exception_ptr error_;
};

// Elaborates the demo under `root`, runs it for mechanisms.cars.demo.cycles and returns
// its statistics. It runs in a SystemC kernel of its own (common/
// sc_kernel.h), so it can run any number of times in one process.
DemoResult runRenameDemo(const config::GpuConfig& cfg, const DemoOptions& opt, stats::Group& root);

}  // namespace rfsim::cars
