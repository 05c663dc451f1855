// R2D2's configuration section, `mechanisms.r2d2:` (Ha, Oh, Ro, ISCA'23;
// docs/r2d2.md, docs/r2d2.md).
#pragma once

#include <cstdint>
#include <string>

#include "config/gpu_config.h"

namespace rfsim::mech::r2d2 {

// The choice keys' values (config/gpu_config_fields.h: enums with their names).
enum class R2d2Mode : uint8_t { Transform, Baselines, Dac, Darsie, DarsieScalar };
inline const config::Choices& choiceNames(R2d2Mode) {
  static const config::Choices names{"transform", "baselines", "dac", "darsie", "darsie_scalar"};
  return names;
}
enum class R2d2Fault : uint8_t { None, TrRow, BrLane };
inline const config::Choices& choiceNames(R2d2Fault) {
  static const config::Choices names{"none", "tr_row", "br_lane"};
  return names;
}

struct R2d2Config {
  // transform: the transformed kernels (the mechanism); baselines: the
  // original code, with the redundancy baselines counted as it runs
  // (redundancy.h: ideal WP, TB and LN, DAC, DARSIE, DARSIE+Scalar); dac,
  // darsie, darsie_scalar: the same counts, and that machine timed (the
  // instructions it skips are free; DARSIE+Scalar's scalar ones run on the
  // scalar pipeline).
  R2d2Mode mode = R2d2Mode::Transform;
  // Section 4.2: the operand collector reads a linear register's
  // thread-index and block-index parts and the LD/ST unit's address adder
  // sums them; the paper takes it as an integer add (4 cycles).
  uint32_t add_latency = 4;
  // Section 5.4's latency-tolerance study: cycles the register ID
  // calculation adds to every read of an R2D2 register (thread-index,
  // block-index, coefficient, linear), and cycles a warp waits at launch
  // for the starting-PC table and the SM's flags.
  uint32_t idcalc_cycles = 0;
  uint32_t fetch_cycles = 0;
  // Section 4.1: the SM's schedulers issue round robin while a warp runs a
  // linear block (the baseline's GTO would run one warp's block to its end
  // while the warps waiting on its flags idle), GTO otherwise.
  bool linear_round_robin = true;
  // The paper's baseline GPU has a scalar pipeline for operations on
  // constant operands (section 5, docs/r2d2.md): with it, a warp
  // instruction that writes registers without touching memory and reads only
  // constant values (immediates, parameters, constants, block-uniform
  // special registers, and registers a converged warp computed from those
  // alone) runs on the SM's scalar pipeline (InstrObserver::scalar), in every
  // mode. darsie_scalar puts its scalar instructions there whatever this says.
  bool scalar_pipeline = false;
  // Energy: the LD/ST adder's add per lane of a linear operand (an integer
  // add: energy.int_lane_pj when 0).
  double add_lane_pj = 0.0;
  // Co-simulate rtl/r2d2_regid.sv (the register ID calculation and the
  // register table) in lockstep with the C++ reference in every SM.
  bool rtl = false;
  // A fault injected for the tests, showing that the values go through the
  // calculated rows: tr_row reads every warp's thread-index parts from the
  // row of its block's first warp; br_lane reads the block-index parts from
  // the next lane.
  R2d2Fault fault = R2d2Fault::None;

  template <class V> void visit(V& v) {
    v.choice("mode", mode,
             "transform: run the transformed kernels; baselines: run the original code and count what the ideal "
             "WP/TB/LN machines, DAC, DARSIE and DARSIE+Scalar would execute; dac, darsie, darsie_scalar: count "
             "them and time that machine (the instructions it skips are free)");
    v.integer("add_latency", add_latency, config::IntRange{0, 64}, "cycle",
              "cycles the LD/ST unit's adder takes to sum a linear operand's parts (section 4.2: 4)");
    v.integer("idcalc_cycles", idcalc_cycles, config::IntRange{0, 64}, "cycle",
              "extra cycles of the register ID calculation on every read of an R2D2 register (section 5.4)");
    v.integer("fetch_cycles", fetch_cycles, config::IntRange{0, 1024}, "cycle",
              "extra cycles a warp of a transformed kernel waits at launch (starting-PC table and flags; section 5.4)");
    v.boolean("linear_round_robin", linear_round_robin,
              "schedulers issue round robin while a warp of the SM runs a linear block, their policy otherwise "
              "(section 4.1)");
    v.boolean("scalar_pipeline", scalar_pipeline,
              "the paper's baseline's scalar pipeline: warp instructions on constant operands (immediates, "
              "parameters, block-uniform special registers and values computed from them) run on it as one lane, in "
              "every mode; darsie_scalar puts its scalar instructions there whatever this says");
    v.real("add_lane_pj", add_lane_pj, config::RealRange{0.0, 1e6}, "pJ",
           "the address adder's add per lane of a linear operand (0: energy.int_lane_pj)");
    v.boolean("rtl", rtl,
              "co-simulate the Verilated register ID calculation (rtl/r2d2_regid.sv) in lockstep in every SM");
    v.choice("fault", fault,
             "inject a fault (tests): tr_row reads every warp's thread-index parts from its block's first warp's "
             "row, br_lane the block-index parts from the next lane");
  }
};

}  // namespace rfsim::mech::r2d2
