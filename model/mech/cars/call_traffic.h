// Synthetic call/return traffic for the CARS rename unit: every warp runs a
// random walk over a call chain (launch, call with a callee FRU, pushes of
// callee-saved registers, pops, return) while the operand collector renames
// random source registers. It drives the demo and the random test bench.
//
// It keeps its own shadow of each warp's frames, written from the algorithm
// in CARS section III-A and independent of RenameRef, and checks every
// rename, every trap decision and the state of the inspected warp against it:
// a second oracle beside the lockstep comparison.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "mech/cars/rename_unit.h"

namespace rfsim::cars {

struct TrafficParams {
  uint32_t warps = 64;        // warps that run (<= unit's num_warps)
  uint32_t kernel_regs = 20;  // base allotment per warp
  uint32_t stack_regs = 10;   // in-register stack per warp
  uint32_t max_fru = 6;       // callee FRU drawn from [0, max_fru]
  uint32_t max_depth = 4;
  double op_rate = 0.25;      // probability of an operation per cycle
  double illegal_rate = 0.0;  // probability that an operation is deliberately malformed
  double relaunch_rate = 0.01;  // probability that an idle warp starts a new thread block
  uint64_t seed = 1;
};

class CallTraffic {
 public:
  // Throws rfsim::Error when the warps' allotments do not fit the register
  // file or the stack exceeds the free counter; `source` names where the
  // parameters came from (a config file) for the message.
  CallTraffic(const RenameParams& unit, const TrafficParams& t, const std::string& source = "demo");

  // This cycle's inputs.
  void next(Inputs& in);
  // Learns the outcome of the cycle and checks it against the shadow model;
  // throws rfsim::Error describing the first disagreement.
  void observe(const Inputs& in, const Outputs& out);

  uint32_t depth(uint32_t warp) const { return static_cast<uint32_t>(warps_[warp].frames.size()); }
  uint64_t cycle() const { return cycle_; }

 private:
  struct Frame {
    uint32_t fru = 0;     // registers this callee may push
    uint32_t pushed = 0;
    uint32_t save_slot = 0;  // where the caller's RFP was saved
  };
  struct Warp {
    bool launched = false;
    uint32_t base = 0, stack_start = 0;
    uint32_t rfp = 0, rsp = 0;
    std::vector<Frame> frames;
  };

  OpRequest pickOp(uint32_t w);
  uint32_t pickReg(const Warp& s);
  uint32_t freeRegs(const Warp& s) const;
  uint32_t uniform(uint32_t lo, uint32_t hi);  // inclusive
  bool chance(double p);

  RenameParams unit_;
  TrafficParams t_;
  std::vector<Warp> warps_;
  std::vector<uint32_t> rf_;  // register-file words holding saved RFPs
  std::mt19937_64 rng_;
  uint64_t cycle_ = 0;
  uint32_t dbg_next_ = 0;
  bool expect_illegal_ = false;
};

}  // namespace rfsim::cars
