// The redundancy baselines R2D2 is compared with (Ha, Oh, Ro, ISCA'23,
// sections 2.2 and 5; docs/r2d2.md), measured on the original code as it
// runs: an SM observer (sm/core/hooks.h, InstrObserver) that looks at every
// warp instruction's operand values before it executes and its results
// after, and counts what each idealised machine would still execute.
//
//   ideal WP   one thread instruction instead of the warp's active lanes
//              when every active lane has the same source values (Fig. 4)
//   ideal TB   a warp instruction with the same pc, lanes and source values
//              as one already executed in its block is skipped (Fig. 4)
//   ideal LN   every instruction computing a linear value (Fig. 6's transfer
//              rules over the indices, the parameters, the launch dimensions
//              and immediates, followed dynamically) is free (Fig. 4)
//   DAC        an affine computation -- Fig. 6's operations (mov, cvt, add,
//              sub, mul, mad, shl) over the indices, the parameters, the
//              launch dimensions and immediates, followed dynamically as for
//              ideal LN -- whose result is consecutive affine values across
//              the active lanes is computed once per block: the first warp's
//              execution of that pc counts, the others' are free (R2D2
//              section 5: "computing all warp instructions producing
//              consecutive affine values with a single warp instruction
//              without any overhead"; Wang and Lin's DAC decouples the
//              affine stream per thread block). A uniform value computed from
//              loaded data is not affine computation and is not free.
//   DARSIE     as ideal TB, but a load repeats an earlier one only when no
//              store, atomic or reduction of the block came between (no
//              memory dependence); control flow, stores, atomics, barriers and
//              local memory are never skipped; and a repeat is skipped only
//              when its redundancy follows from its inputs': every source
//              register was itself written by a skipped repeat (or the
//              instruction reads only immediates, parameters, constants and
//              special registers). DARSIE's compiler marks instructions
//              redundant across a block's warps from the block's dimensions,
//              not from equal data, so a repeat whose operands a warp
//              computed itself (equal values by coincidence) runs
//   DARSIE+Scalar  DARSIE, and a non-redundant warp instruction whose active
//              lanes all have the same source values runs on the scalar
//              pipeline instead (counted apart)
//
// Choices the paper leaves open, decided here: identity is the pc, the active
// mask and the source registers' values in the active lanes (special
// registers by value: tid per lane; clocks and SM ids never repeat); TB and
// DARSIE never skip control flow (bra, call, ret, exit), barriers, stores,
// atomics, reductions, shuffles and votes; a value is "affine" when its
// 32-bit words over the active lanes are base + k x stride (a 64-bit value:
// each word).
//
// Timed (mechanisms.r2d2.mode dac, darsie, darsie_scalar): the observer also
// elides what one machine skips (InstrObserver::elided): the instruction
// executes (the values stay right) but costs no issue slot, register read,
// unit or memory access, and the warp's next instruction may issue in the
// same cycle. DAC's free instructions are its affine ones after the block's
// first; DARSIE's its redundant ones. DARSIE+Scalar runs its scalar ones
// (same source values in every active lane) on the SM's scalar pipeline
// (InstrObserver::scalar); the baseline with a scalar pipeline
// (mechanisms.r2d2.scalar_pipeline) runs its operations on constant
// operands there.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "sm/core/hooks.h"

namespace rfsim::mech::r2d2 {

struct RedundancyCounts {
  uint64_t warp_instrs = 0, thread_instrs = 0;  // the original code's, as observed
  uint64_t wp_thread_instrs = 0;                // ideal WP
  uint64_t tb_warp_instrs = 0, tb_thread_instrs = 0;  // ideal TB
  uint64_t ln_warp_instrs = 0, ln_thread_instrs = 0;  // ideal LN
  uint64_t dac_warp_instrs = 0, dac_thread_instrs = 0;
  uint64_t darsie_warp_instrs = 0, darsie_thread_instrs = 0;
  uint64_t scalar_warp_instrs = 0;              // DARSIE+Scalar: of darsie_warp_instrs, run on the scalar pipeline
  uint64_t elided_warp_instrs = 0;              // timed modes: warp instructions elided
  uint64_t scalar_pipeline_instrs = 0;          // warp instructions run on the SM's scalar pipeline
  void add(const RedundancyCounts& o);
};

class RedundancyObserver final : public sm::InstrObserver, public sm::SmEventHook {
 public:
  enum class Elide : uint8_t { None, Dac, Darsie, DarsieScalar };
  // `scalar_pipeline`: the SM has one (InstrObserver::scalar), the paper's
  // baseline's for operations on constant operands: a warp instruction that
  // is not elided, writes registers without touching memory and reads only
  // constant values (immediates, parameters, constants, block-uniform
  // special registers and what a converged warp computed from them alone)
  // runs on it. DARSIE+Scalar puts there every such instruction whose active
  // lanes read the same values.
  explicit RedundancyObserver(uint32_t max_warps, Elide elide = Elide::None, bool scalar_pipeline = false);
  bool elided() const override { return free_; }
  bool scalar() const override { return scalar_now_; }
  void before(uint32_t warp_slot, const func::BlockStepper& block, uint32_t local_warp, const func::DInstr& d,
              const func::Warp& w, const func::MachineColumns& cols) override;
  void after(uint32_t warp_slot, const func::DInstr& d, const func::StepInfo& info, const func::Warp& w,
             const func::MachineColumns& cols) override;
  void onBlockRetired(rt::Dim3 ctaid, uint64_t now) override;  // its history goes
  const RedundancyCounts& counts() const { return n_; }

 private:
  // A block's history: the identities seen (TB: any; DARSIE: loads carry the
  // block's store epoch) and the pcs whose affine result was computed.
  struct Block {
    std::unordered_set<uint64_t> tb, darsie, affine;
    uint64_t epoch = 0;
  };
  struct WarpTrack {
    uint32_t x = UINT32_MAX, y = 0, z = 0, local = UINT32_MAX;
    std::vector<uint8_t> lin;  // per machine register id: bit 0 linear, bit 1 depends on an index, bit 2 constant,
                               // bit 3 computed by this warp (not a DARSIE repeat)
  };
  std::unordered_map<uint64_t, Block> blocks_;  // by ctaid, while resident
  std::vector<WarpTrack> warps_;
  // What before() found, for after().
  struct Pending {
    Block* block = nullptr;
    uint64_t key = 0;
    bool skippable = false, uniform = false, load = false, ordered_load = false, tb_seen = false,
         darsie_seen = false, linear = false, constant = false;
    uint8_t lin_bits = 0;
    uint32_t lanes = 0;
  } p_;
  RedundancyCounts n_;
  Elide elide_ = Elide::None;
  bool free_ = false;  // the last instruction observed is elided
  bool scalar_pipeline_ = false, scalar_now_ = false;  // ... runs on the scalar pipeline
};

}  // namespace rfsim::mech::r2d2
