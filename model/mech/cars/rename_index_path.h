// The CARS rename unit in the SM's register-index translation path (the SM timing model's
// "RTL in the loop"). It sits behind two of the SM's extension points:
//
// - (a) RegTranslator: every register-file access of the operand collector
//   (source reads at issue, destination writes at write-back) is renamed by
//   the unit's rename ports; the index it returns is the row the collector
//   uses (register-file level, and the bank under BankIndex::kTranslated).
// - (c) WarpRegAllocator: a warp's allocation becomes a Launch operation on
//   the unit's operation port (Base, base allotment = the kernel's registers,
//   stack = 0 in the baseline). The port takes one operation per cycle (CARS
//   section IV-B), so the warps of a block are written one per cycle; a warp
//   may not issue before its Launch took effect (ready()).
//
// The unit is clocked by the SM: one evaluate() per rename (the rename ports
// of one cycle fill up in order and every evaluation presents all of them)
// and one tick() at the end of every SM cycle (RegTranslator::endCycle).
// With RenameLockstep, the C++ reference and the Verilated RTL see the same
// inputs and every output is compared on every evaluation.
//
// In the baseline (no stack) the unit must compute Base + index (CARS
// section III-A, a register not pushed): the path checks every index against
// its own record of the bases, an oracle independent of both models. CARS'
// calls and returns will use the same path.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "config/gpu_config.h"
#include "mech/cars/rename_unit.h"
#include "sm/core/hooks.h"
#include "sm/opcoll/bank_map.h"
#include "stats/stats.h"

namespace rfsim::cars {

struct IndexPathStats : stats::Group {
  explicit IndexPathStats(stats::Group* parent);
  stats::Scalar cycles;          // SM cycles the unit was clocked
  stats::Scalar evaluations;     // evaluate() calls (each one compared in lockstep)
  stats::Scalar renames;         // register-file accesses renamed
  stats::Scalar launch_ops;      // Launch operations applied
  stats::Scalar launch_wait;     // cycles a Launch waited in the queue for the port
  stats::Scalar max_renames;     // most renames in one cycle
  stats::Scalar port_overflow_cycles;  // cycles with more renames than rename ports
};

class RenameIndexPath final : public sm::RegTranslator, public sm::WarpRegAllocator {
 public:
  // `unit`: RenameLockstep (RTL and reference), RenameRef or RenameRtl; its
  // parameters give the warps and rows it covers. `inner` decides the bases
  // (nullptr: the baseline, warp slot x registers per thread).
  RenameIndexPath(std::unique_ptr<RenameUnit> unit, sm::WarpRegAllocator* inner = nullptr,
                  stats::Group* stats_parent = nullptr);

  // The unit the configuration asks for: mechanisms.cars.rtl (RenameLockstep) or the
  // reference alone, with cars.rename_ports ports; checks that the Verilated
  // build covers the SM (sm.max_warps warps, the register file's rows).
  static std::unique_ptr<RenameUnit> unitFor(const config::GpuConfig& cfg);

  // sm::RegTranslator
  uint32_t translate(uint32_t warp, uint32_t reg) override;
  void endCycle(uint64_t now) override;

  // sm::WarpRegAllocator
  bool canLaunch(uint32_t num_warps, uint32_t regs_per_thread) override;
  bool allocate(uint32_t block_slot, uint32_t warp_slot, uint32_t local_warp, uint32_t regs_per_thread,
                uint32_t& base) override;
  void release(uint32_t warp_slot) override;
  bool ready(uint32_t warp_slot) const override { return warp_slot >= pending_.size() || !pending_[warp_slot]; }

  RenameUnit& unit() { return *unit_; }
  IndexPathStats& stats() { return stats_; }

 private:
  struct Launch {
    uint32_t warp, base, frame;
    uint64_t queued_cycle;
  };
  void evaluate();
  [[noreturn]] void fail(const std::string& what) const;

  std::unique_ptr<RenameUnit> unit_;
  sm::BaselineRegAllocator base_alloc_;
  sm::WarpRegAllocator* inner_;
  RenameParams p_;
  IndexPathStats stats_;
  Inputs in_{};
  Outputs out_{};
  uint32_t ports_used_ = 0;   // rename ports filled this cycle
  uint32_t cycle_renames_ = 0;
  bool evaluated_ = false;    // out_ holds this cycle's operation outputs
  std::deque<Launch> launches_;
  std::vector<bool> pending_;     // per warp: Launch not applied yet
  std::vector<uint32_t> expect_;  // per warp: the base the unit must add
  uint64_t now_ = 0;         // the cycle being evaluated (for messages)
  uint64_t next_cycle_ = 0;  // the cycle a Launch queued now is first presented in
};

}  // namespace rfsim::cars
