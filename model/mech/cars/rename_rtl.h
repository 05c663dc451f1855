// The Verilated rtl/cars_rename.sv behind the RenameUnit interface.
//
// Verilator's --cc model is driven directly from the caller's clocked
// SC_METHOD (one eval() for the combinational outputs, one per clock edge)
// rather than through --sc pin-level sc_signals: one signal per port would
// cost an order of magnitude in speed (Verilator manual, "Connecting to
// SystemC"), and the lockstep check wants the outputs of each cycle at once.
#pragma once

#include <filesystem>
#include <memory>

#include "mech/cars/rename_unit.h"

namespace rfsim::cars {

class RenameRtl final : public RenameUnit {
 public:
  // The parameters the model was Verilated with (CMake RFSIM_CARS_*).
  static RenameParams builtParams();

  // `p` must match builtParams() except for read_ports, which may be fewer.
  explicit RenameRtl(const RenameParams& p);
  ~RenameRtl() override;

  const RenameParams& params() const override { return p_; }
  void evaluate(const Inputs& in, Outputs& out) override;
  void tick() override;
  void reset() override;

  // Writes a VCD of the unit's ports and state for cycles [start, start+count).
  void traceTo(const std::filesystem::path& vcd, uint64_t start, uint64_t count);
  void closeTrace();
  uint64_t cycle() const { return cycle_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  RenameParams p_;
  uint32_t warp_bits_, idx_bits_;  // p_.warpBits(), p_.idxBits()
  uint64_t cycle_ = 0;
  // tick() leaves the idle port unevaluated outside the trace window
  // (nothing reads the outputs before the next evaluate()).
  bool idle_pending_ = false;
};

}  // namespace rfsim::cars
