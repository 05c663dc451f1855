// The CARS mechanism's configuration section, `mechanisms.cars:` (CARS
// paper, section IV-B: the rename unit; the co-simulation of its RTL).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "config/gpu_config.h"
#include "config/mechanisms_config.h"
#include "mech/cars/demo_config.h"

namespace rfsim::cars {

// mechanisms.cars.allocation's values (config/gpu_config_fields.h: enums
// with their names).
enum class Allocation : uint8_t { Adaptive, Low, High, Low2x, Low4x };
inline const config::Choices& choiceNames(Allocation) {
  static const config::Choices names{"adaptive", "low", "high", "2xlow", "4xlow"};
  return names;
}

struct CarsConfig {
  uint32_t rename_ports = 4;  // operand-collector reads renamed per cycle
  bool rtl = true;            // put the Verilated RTL in the loop beside the C++ reference
  bool trace = false;         // write the RTL waveform (VCD) of the run
  uint64_t trace_start = 0;   // first traced cycle
  uint64_t trace_cycles = 2000;
  // Registers per warp (section III-B): low = the kernel's FRU + the largest
  // function's (+ its saved RFP), high = the deepest call path's, Nxlow = N
  // times low; the leftover rule raises any level to the register file split
  // equally over the warps the SM will hold. adaptive: the state machine of
  // Fig. 5 (cars_adaptive.h) picks among low, 2xlow, 4xlow, ..., high.
  Allocation allocation = Allocation::Adaptive;
  // The leftover rule (docs/mechanisms.md): a level below the register file split
  // equally over the warps an SM will hold is raised to that share.
  bool leftover = true;
  // Adaptive allocation, what the paper leaves open (docs/mechanisms.md):
  // - the metric of a finished block: the SM's warp instructions per cycle
  //   over the block's lifetime, not the block's own IPC, which falls with
  //   concurrency even when the SM gains;
  // - a level must beat the current one by adapt_hysteresis (relative) to
  //   draw an SM toward it, so that noise does not make SMs oscillate.
  double adapt_hysteresis = 0.02;
  // Extra pipeline cycles (section IV-B; the paper's simulations charge one
  // in issue -- the free-register check -- and one in the operand collector
  // -- the rename -- for every instruction, a worst case).
  // The barrier context switch (section IV-B2): in a kernel with barriers,
  // a warp waiting at one is switched out for a stalled warp of its block.
  // false: such a kernel's blocks are admitted only when all their warps
  // get registers at once (no warp of a block ever waits for registers).
  bool context_switch = true;
  uint32_t issue_cycles = 1;
  uint32_t opcoll_cycles = 1;
  // Energy of the two units (docs/cost.md, "Energy per operation"): the
  // gate-level simulation of their OSU018 netlists by `rfsim cost` (V100:
  // 64 warps, 2048 warp-registers, 4 rename ports), scaled to 12 nm and
  // 0.9 V by node/180 nm x (V/1.8 V)^2 = 1/60 (first order). Per operation:
  // a rename (one operand through a rename port), a push or pop, a call or
  // return, any other operation of the unit (launch, spill, fill), one
  // operation of the stalled-warp list; per SM cycle the clock of both units'
  // flops (no clock gating); leakage per SM (both units). Measured: at
  // OSU018 a rename 28.2 pJ, push 123, pop 131, call/return 97.9, launch
  // 102, list operation 76-415, clock 802 pJ per cycle (docs/cost.md).
  double rename_pj = 0.470;
  double push_pop_pj = 2.11;
  double call_ret_pj = 1.63;
  double other_op_pj = 1.70;
  double list_op_pj = 3.34;
  double clock_pj = 13.4;
  double static_mw = 6.3e-5;
  // The demo's traffic (`rfsim demo`): a section of its own below this one.
  config::ErasedSection demo{std::make_unique<config::SectionOf<DemoConfig>>()};

  template <class V> void visit(V& v) {
    using config::IntRange;
    using config::RealRange;
    v.integer("rename_ports", rename_ports, IntRange{1, 8}, "port", "renames per cycle (operand reads)");
    v.boolean("rtl", rtl, "co-simulate the Verilated rename unit in lockstep with the C++ reference");
    v.boolean("trace", trace, "write a VCD waveform of the rename unit and a GTKWave save file");
    v.integer("trace_start", trace_start, IntRange{0, INT64_MAX}, "cycle", "first cycle written to the trace");
    v.integer("trace_cycles", trace_cycles, IntRange{1, 100000000}, "cycle", "cycles written to the trace");
    v.choice("allocation", allocation,
             "registers per warp: adaptive (Fig. 5 state machine), or fixed at the low or high watermark or N x low "
             "(CARS III-B)");
    v.boolean("leftover", leftover,
              "raise every level to the register file split equally over the warps an SM will hold (docs/mechanisms.md)");
    v.real("adapt_hysteresis", adapt_hysteresis, RealRange{0.0, 1.0}, "ratio",
           "adaptive: how much better (relative IPC) a level must be to draw an SM toward it");
    v.boolean("context_switch", context_switch,
              "barrier context switch (CARS IV-B2): a warp waiting at a barrier gives its registers to a stalled "
              "warp of its block; false: blocks of kernels with barriers are admitted only when all their warps fit");
    v.integer("issue_cycles", issue_cycles, IntRange{0, 8}, "cycle",
              "extra issue-stage cycles for every instruction, as pipeline latency (free-register check, CARS IV-B)");
    v.integer("opcoll_cycles", opcoll_cycles, IntRange{0, 8}, "cycle",
              "extra operand-collector cycles for every instruction (the rename, CARS IV-B)");
    const RealRange pj{0.0, 1e6};
    v.real("rename_pj", rename_pj, pj, "pJ", "energy of one rename (an operand index through a rename port)");
    v.real("push_pop_pj", push_pop_pj, pj, "pJ", "energy of one push or pop of the rename unit");
    v.real("call_ret_pj", call_ret_pj, pj, "pJ", "energy of one call or return of the rename unit");
    v.real("other_op_pj", other_op_pj, pj, "pJ", "energy of one launch, spill or fill operation of the rename unit");
    v.real("list_op_pj", list_op_pj, pj, "pJ",
           "energy of one stalled-warp list operation (deactivate, remove, warp status check)");
    v.real("clock_pj", clock_pj, pj, "pJ", "clock energy of both units' flops per SM cycle");
    v.real("static_mw", static_mw, RealRange{0.0, 1e6}, "mW", "leakage of both units in one SM");
    v.section("demo", demo, "rename-unit demo traffic (rfsim demo)");
  }
};

// The section of `cfg` (the CARS mechanism must be registered).
inline const CarsConfig& carsConfig(const config::GpuConfig& cfg) {
  return cfg.mechanisms.get<CarsConfig>("cars");
}
inline CarsConfig& carsConfig(config::GpuConfig& cfg) { return cfg.mechanisms.get<CarsConfig>("cars"); }
// Its demo's traffic, mechanisms.cars.demo.
inline const DemoConfig& demoConfig(const config::GpuConfig& cfg) { return carsConfig(cfg).demo.as<DemoConfig>(); }
inline DemoConfig& demoConfig(config::GpuConfig& cfg) { return carsConfig(cfg).demo.as<DemoConfig>(); }

}  // namespace rfsim::cars
