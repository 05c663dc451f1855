// C++ reference model of rtl/cars_rename.sv, bit-accurate (stack pointers
// wrap inside each warp's circular stack, Base + x at log2(num_regs) bits,
// free counters at free_bits), used as the oracle of the RTL and as the fast
// model when the RTL is not in the loop.
#pragma once

#include <vector>

#include "mech/cars/rename_unit.h"

namespace rfsim::cars {

class RenameRef final : public RenameUnit {
 public:
  explicit RenameRef(const RenameParams& p);

  const RenameParams& params() const override { return p_; }
  void evaluate(const Inputs& in, Outputs& out) override;
  // Port `port`'s rename and the debug port only, unless an operation is
  // presented.
  void evaluateRename(const Inputs& in, Outputs& out, uint32_t port) override;
  // No operation: nothing for the edge to apply.
  void evaluateIdle(const Inputs&, Outputs&) override { pending_ = false; }
  void tick() override;
  void reset() override;

  const WarpState& warp(uint32_t w) const { return state_[w]; }

 private:
  RenameParams p_;
  uint32_t idx_mask_;
  uint32_t free_mask_;
  void rename(const Inputs& in, Outputs& out, uint32_t port) const;

  std::vector<WarpState> state_;
  std::vector<uint32_t> stack_;  // K per warp
  uint32_t frame_ = 0;           // the launch's base allotment F
  // Decided in evaluate(), applied by tick().
  bool pending_ = false;
  uint32_t pending_warp_ = 0;
  WarpState pending_state_;
  uint32_t pending_stack_ = 0, pending_frame_ = 0;
  bool pending_launch_ = false;
};

}  // namespace rfsim::cars
