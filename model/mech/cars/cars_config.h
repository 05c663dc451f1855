// The CARS mechanism's configuration section, `mechanisms.cars:` (CARS
// paper, section IV-B: the rename unit; the co-simulation of its RTL).
#pragma once

#include <cstdint>
#include <string>

#include "config/gpu_config.h"

namespace rfsim::cars {

struct CarsConfig {
  uint32_t rename_ports = 4;  // operand-collector reads renamed per cycle
  bool rtl = true;            // put the Verilated RTL in the loop beside the C++ reference
  bool trace = false;         // write the RTL waveform (VCD) of the run
  uint64_t trace_start = 0;   // first traced cycle
  uint64_t trace_cycles = 2000;
  // Registers per warp (section III-B): low = the kernel's FRU + the largest
  // function's (+ its saved RFP), high = the deepest call path's, Nxlow = N
  // times low; the leftover rule raises any level to the register file split
  // equally over the warps the other limiters allow. The adaptive state
  // machine of Fig. 5 is not modelled yet.
  std::string allocation = "high";

  template <class V> void visit(V& v) {
    using config::IntRange;
    v.integer("rename_ports", rename_ports, IntRange{1, 8}, "port", "renames per cycle (operand reads)");
    v.boolean("rtl", rtl, "co-simulate the Verilated rename unit in lockstep with the C++ reference");
    v.boolean("trace", trace, "write a VCD waveform of the rename unit and a GTKWave save file");
    v.integer("trace_start", trace_start, IntRange{0, INT64_MAX}, "cycle", "first cycle written to the trace");
    v.integer("trace_cycles", trace_cycles, IntRange{1, 100000000}, "cycle", "cycles written to the trace");
    v.choice("allocation", allocation, config::Choices{"low", "high", "2xlow", "4xlow"},
             "registers per warp: the kernel's and a stack of the low or high watermark, or N x low (CARS III-B)");
  }
};

// The section of `cfg` (the CARS mechanism must be registered).
inline const CarsConfig& carsConfig(const config::GpuConfig& cfg) {
  return cfg.mechanisms.get<CarsConfig>("cars");
}
inline CarsConfig& carsConfig(config::GpuConfig& cfg) { return cfg.mechanisms.get<CarsConfig>("cars"); }

}  // namespace rfsim::cars
