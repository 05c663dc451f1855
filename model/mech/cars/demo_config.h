// The synthetic call/return traffic that drives the rename-unit demo
// (`rfsim demo`, rename_demo.h): the section `mechanisms.cars.demo:`.
#pragma once

#include <cstdint>

#include "config/gpu_config_fields.h"

namespace rfsim::cars {

struct DemoConfig {
  uint64_t cycles = 200000;
  uint64_t seed = 1;
  uint32_t kernel_regs = 20;     // base allotment per warp (CARS Fig. 4: kernel FRU 20)
  uint32_t stack_regs = 10;      // in-register stack per warp
  uint32_t max_fru = 6;          // largest callee FRU drawn
  uint32_t max_depth = 4;        // deepest call chain drawn
  double op_rate = 0.25;         // probability of a call/return/push/pop per cycle

  template <class V> void visit(V& v) {
    using config::IntRange;
    using config::RealRange;
    v.integer("cycles", cycles, IntRange{1, INT64_MAX}, "cycle", "simulated cycles");
    v.integer("seed", seed, IntRange{0, INT64_MAX}, "", "random seed of the traffic generator");
    v.integer("kernel_regs", kernel_regs, IntRange{1, 255}, "register", "base registers per warp (kernel FRU)");
    v.integer("stack_regs", stack_regs, IntRange{0, 2047}, "register", "in-register stack per warp");
    v.integer("max_fru", max_fru, IntRange{0, 239}, "register", "largest function register usage drawn");
    v.integer("max_depth", max_depth, IntRange{0, 64}, "call", "deepest call chain drawn");
    v.real("op_rate", op_rate, RealRange{0.0, 1.0}, "", "probability of a stack operation per cycle");
  }
};

}  // namespace rfsim::cars
