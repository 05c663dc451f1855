// CARS in one SM (CARS paper, section IV-B): the rename unit in the
// register-index path (rename_index_path.h) driven by the warps' calls,
// returns, pushes and pops; the per-warp register regions with the
// in-register stack; the stalled-warp list and the warp status check.
//
// - Regions (CarsRegions): each warp gets `frame` registers (the kernel's
//   FRU: its own registers) followed by `stack` registers of stack, in
//   fixed regions of frame + stack rows. A warp of an admitted block that
//   finds no free region waits in the stalled-warp list and never issues;
//   when a warp exits its region goes to the oldest stalled warp (the warp
//   status check). Concurrency is limited at issue, not by the block
//   scheduler (repro.md 1.5).
// - Issue (CarsSm, an sm::IssueGate): flags calls, rets, pushes and pops.
//   The unit's operation port takes one operation per SM cycle: a flagged
//   instruction waits while another warp's holds the port this cycle. A
//   call needs its callee's FRU + 1 free registers (the saved RFP), a push
//   its count: a warp short of them would need the stack-overflow trap
//   (section IV-A), which is not modelled: the run stops with an error
//   naming the warp, the instruction and the registers.
// - Events (an sm::SmEventHook): a call that entered its function is the
//   unit's Call; the frame's release (the SIMT stack back at the entry
//   with the function-call bit: the last lanes returned) its Ret. A pop
//   executed by every lane of the frame is the unit's Pop; a pop by fewer
//   lanes (a divergent return) is left to the Ret, which frees the whole
//   frame when the last lanes return (RSP <- RFP).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "mech/cars/rename_index_path.h"
#include "ptx/isa_ext.h"
#include "sm/core/hooks.h"

namespace rfsim::sm {
class Sm;
}

namespace rfsim::cars {

class CarsRegions final : public RegionAllocator {
 public:
  CarsRegions(uint32_t rows, uint32_t frame, uint32_t stack, uint32_t num_warps);
  bool allocate(uint32_t block_slot, uint32_t warp_slot, uint32_t local_warp, uint32_t regs_per_thread,
                uint32_t& base) override;
  void release(uint32_t warp_slot) override;
  uint32_t stackRegs() const override { return stack_; }
  uint32_t frameRegs(uint32_t) const override { return frame_; }
  bool grantStalled(uint32_t& warp_slot, uint32_t& base) override;
  uint32_t regions() const { return static_cast<uint32_t>(regions_); }
  uint64_t stalled_warps = 0;  // warps that waited in the stalled-warp list
  uint32_t max_stalled = 0;

 private:
  uint32_t frame_, stack_;
  size_t regions_;
  std::vector<uint32_t> free_;      // free region indices
  std::vector<int32_t> owner_;      // per warp slot: its region, or -1
  std::deque<uint32_t> stalled_;    // warp slots without a region, oldest first
};

struct CarsSmStats {
  uint64_t gate_checks = 0, port_waits = 0, calls = 0, rets = 0, pushes = 0, pops = 0, pops_deferred = 0;
};

class CarsSm final : public sm::IssueGate, public sm::SmEventHook {
 public:
  // `path` and `sm` outlive this object.
  CarsSm(sm::Sm& sm, uint32_t sm_id, RenameIndexPath& path);
  bool flags(const func::DInstr& next) const override;
  bool mayIssue(uint32_t warp_slot, const func::DInstr& next, uint64_t now) override;
  void issued(uint32_t warp_slot, const func::DInstr& instr, const func::StepInfo& info, uint64_t now) override;
  // Nothing changes by itself: a waiting warp waits for another's issue.
  uint64_t nextEventCycle(uint64_t) const override { return UINT64_MAX; }
  void onCall(uint32_t warp_slot, const func::DInstr& call, uint32_t callee, uint32_t depth, uint64_t now) override;
  void onFrameRelease(uint32_t warp_slot, uint32_t released, uint32_t depth, uint64_t now) override;
  const CarsSmStats& stats() const { return stats_; }

 private:
  [[noreturn]] void overflow(uint32_t warp_slot, const func::DInstr& d, uint32_t need) const;
  sm::Sm& sm_;
  uint32_t sm_id_;
  RenameIndexPath& path_;
  uint16_t push_id_ = 0, pop_id_ = 0;
  ptx::ControlField fru_;  // cars.fru of calls
  uint64_t claimed_ = UINT64_MAX;  // the cycle the operation port was last claimed
  CarsSmStats stats_;
};

}  // namespace rfsim::cars
