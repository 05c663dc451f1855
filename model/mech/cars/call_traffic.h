// Synthetic call/return traffic for the CARS rename unit: every warp runs a
// random walk over a call chain (launch, call with a callee FRU, pushes of
// callee-saved registers, pops, return) while the operand collector renames
// random source registers. It drives the demo and the random test bench.
// A call the unit refuses for lack of room is followed by the overflow
// trap's Spill operations (the oldest frames, whole, until the call fits)
// and then the call again; a return into a spilled frame is followed by its
// Fill (CARS section IV-A).
//
// It keeps its own shadow of each warp's frames, written from the algorithm
// in CARS section III-A and independent of RenameRef: positions on an
// unbounded logical stack, mapped to rows as stack start + position mod K.
// It checks every rename, every trap decision and the state of the
// inspected warp against it: a second oracle beside the lockstep comparison.
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
  uint64_t spills() const { return spills_; }  // Spill operations acknowledged
  uint64_t fills() const { return fills_; }

 private:
  struct Frame {
    uint32_t fru = 0;     // registers this callee may push
    uint32_t pushed = 0;
    uint64_t start = 0;   // logical position of the saved caller RFP
    uint64_t caller_rfp = 0;
  };
  struct Warp {
    bool launched = false;
    uint32_t base = 0, lo = 0, k = 0;  // Base, stack start, stack size
    uint64_t rfp = 0, rsp = 0, bottom = 0;  // logical; [0, bottom) is spilled
    std::vector<Frame> frames;
    int64_t retry_call = -1;  // the FRU of a refused call, retried after the spills
    uint64_t fill = 0;        // registers to fill back before anything else
    std::vector<uint32_t> spilled;  // saved-RFP words of the spilled positions
  };

  OpRequest pickOp(uint32_t w);
  uint32_t pickReg(const Warp& s);
  uint32_t freeRegs(const Warp& s) const;
  uint32_t row(const Warp& s, uint64_t pos) const { return s.k ? s.lo + static_cast<uint32_t>(pos % s.k) : s.lo; }
  // The end of the oldest resident frame's registers: the next frame's start or RSP.
  uint64_t oldestEnd(const Warp& s) const;
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
  uint64_t spills_ = 0, fills_ = 0;
};

}  // namespace rfsim::cars
