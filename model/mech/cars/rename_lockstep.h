// Runs the C++ reference and the Verilated RTL of the rename unit on the same
// inputs every cycle and compares every output (Ibex's Cosim::step, Vortex's
// SimX vs rtlsim parity). The reference's outputs are the ones returned; a
// difference throws CosimMismatch naming the cycle, the warp and both values.
#pragma once

#include <memory>

#include "common/error.h"
#include "mech/cars/rename_ref.h"
#include "mech/cars/rename_rtl.h"

namespace rfsim::cars {

class CosimMismatch : public Error {
 public:
  using Error::Error;
};

class RenameLockstep final : public RenameUnit {
 public:
  explicit RenameLockstep(const RenameParams& p);

  const RenameParams& params() const override { return ref_.params(); }
  void evaluate(const Inputs& in, Outputs& out) override;
  void tick() override;
  void reset() override;

  RenameRtl& rtl() { return rtl_; }
  uint64_t cycle() const { return cycle_; }
  uint64_t comparisons() const { return comparisons_; }

 private:
  RenameRef ref_;
  RenameRtl rtl_;
  Outputs rtl_out_;
  uint64_t cycle_ = 0;
  uint64_t comparisons_ = 0;
};

// Whether two output sets are equal: every output diffOutputs compares.
bool sameOutputs(const RenameParams& p, const Outputs& ref, const Outputs& dut);
// Compares two output sets; returns an empty string when equal, else a
// description of the first difference.
std::string diffOutputs(const RenameParams& p, const Inputs& in, const Outputs& ref, const Outputs& dut);

}  // namespace rfsim::cars
