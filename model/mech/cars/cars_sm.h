// CARS in one SM (CARS paper, section IV-B): the rename unit in the
// register-index path (rename_index_path.h) driven by the warps' calls,
// returns, pushes and pops; the per-warp register regions with the
// in-register stack; the stalled-warp list and the warp status check.
//
// - Regions (CarsRegions, cars_regions.h): each warp's frame and stack, the
//   stalled-warp list and the warp status check.
// - Issue (CarsSm, an sm::IssueGate): flags calls, rets, pushes and pops.
//   The unit's operation port takes one operation per SM cycle: a flagged
//   instruction waits while another warp's holds the port this cycle.
// - The overflow trap (section IV-A, Fig. 6): a call needs its callee's FRU
//   + 1 free registers (the saved RFP). A warp short of them runs a trap
//   before the call: once its own instructions have drained, it stores the
//   oldest frames of its circular stack, whole, to local memory (one
//   4-byte-per-lane STL per register, real traffic through the L1D) until
//   the call fits, and the unit's free count takes them back (Spill). The
//   new frames then overwrite those rows as RSP wraps. When a return brings
//   control back to a spilled frame, a trap loads it back into the same
//   rows (LDL) and the unit takes them again (Fill) before the caller goes
//   on. The values go through the rows: a spill copies each row into the
//   trap's save area (the thread's local memory) and a fill writes it back,
//   so a wrong row breaks the kernel's output. A frame larger than the
//   whole stack cannot be made to fit: an error naming the call.
// - Events (an sm::SmEventHook): a call that entered its function is the
//   unit's Call; the frame's release (the SIMT stack back at the entry
//   with the function-call bit: the last lanes returned) its Ret. A pop
//   executed by every lane of the frame is the unit's Pop; a pop by fewer
//   lanes (a divergent return) is left to the Ret, which frees the whole
//   frame when the last lanes return (RSP <- RFP).
// - The barrier context switch (section IV-B2, "if a barrier is encountered
//   and there are deactivated warps, a trap is activated to switch out a
//   warp's register state"): when a warp of a block waits at a barrier
//   while stalled warps of its block (no registers yet, or switched out
//   and past an earlier barrier) could run, a warp of that block waiting at
//   the barrier runs a trap that stores its registers to local memory (one
//   STL per row, real traffic), gives its region back and waits in the
//   stalled-warp list; the region goes to a stalled warp of the block at
//   once. When the barrier opens, switched-out warps may run again: the
//   next region freed (an exit, another switch) goes to the oldest of them,
//   at a new Base, and a trap loads its registers into the new rows. Only a
//   warp with no open frame moves (RFP and RSP are rows, and a saved RFP
//   names a row: the paper's barriers are in kernel bodies). One switch per
//   stalled warp that could run, no more.
#pragma once

#include <array>
#include <cstdint>
#include <unordered_map>
#include <deque>
#include <functional>
#include <memory>
#include <vector>

#include "mech/cars/cars_regions.h"
#include "mech/cars/rename_index_path.h"
#include "ptx/isa_ext.h"
#include "sm/core/hooks.h"

namespace rfsim::sm {
class Sm;
}

namespace rfsim::cars {

struct CarsSmStats {
  uint64_t gate_checks = 0, port_waits = 0, calls = 0, rets = 0, pushes = 0, pops = 0, pops_deferred = 0;
  uint64_t overflow_traps = 0;  // calls that ran the overflow trap first
  uint64_t fill_traps = 0;      // returns into a spilled frame
  uint64_t spilled_regs = 0, filled_regs = 0;  // warp-registers (128 B each)
  // The barrier context switch: warps switched out and back in, their
  // warp-registers stored and loaded, switches begun but not needed by the
  // time the registers were saved (the barrier opened).
  uint64_t ctx_switches = 0, ctx_restores = 0, ctx_saved_regs = 0, ctx_restored_regs = 0, ctx_cancelled = 0;
};

class CarsSm final : public sm::IssueGate, public sm::SmEventHook, public sm::TrapListener {
 public:
  // `path` and `sm` outlive this object.
  // `regions`: the warps' regions when the barrier context switch is on
  // (nullptr: off).
  CarsSm(sm::Sm& sm, uint32_t sm_id, RenameIndexPath& path, CarsRegions* regions = nullptr);
  bool flags(const func::DInstr& next) const override;
  // A barrier is flagged only to be told when it issued.
  bool mayRefuse(const func::DInstr& next) const override { return next.in->op != ptx::Op::Bar; }
  bool mayIssue(uint32_t warp_slot, const func::DInstr& next, uint64_t now) override;
  void issued(uint32_t warp_slot, const func::DInstr& instr, const func::StepInfo& info, uint64_t now) override;
  // Nothing changes by itself: a waiting warp waits for another's issue.
  uint64_t nextEventCycle(uint64_t) const override { return UINT64_MAX; }
  void onCall(uint32_t warp_slot, const func::DInstr& call, uint32_t callee, uint32_t depth, uint64_t now) override;
  void onFrameRelease(uint32_t warp_slot, uint32_t released, uint32_t depth, uint64_t now) override;
  void trapOpDone(uint32_t warp_slot, const sm::TrapOp& op, uint64_t now) override;
  void trapDone(uint32_t warp_slot, uint64_t now) override;
  const CarsSmStats& stats() const { return stats_; }

  // Bytes per thread of local memory a spilled stack register takes, and
  // where the trap's save area starts (the bottom of the thread's local
  // memory, far below the ABI stack, which grows down from its top).
  static constexpr uint32_t kSlotBytes = 4;

 private:
  [[noreturn]] void overflow(uint32_t warp_slot, const func::DInstr& d, uint32_t need) const;
  void spillFor(uint32_t warp_slot, const func::DInstr& call, uint32_t need);
  std::vector<sm::TrapOp> trapOps(uint32_t warp_slot, uint64_t from, uint64_t to, bool store) const;
  void barrierIssued(uint32_t warp_slot);
  void restore(uint32_t warp_slot, uint32_t base);
  // A context switch's save area entries: cookies of this bit and the row's
  // offset in the warp's region (the stack's entries are its positions).
  static constexpr uint32_t kCtxCookie = 0x80000000u;
  CarsRegions* regions_;  // the barrier context switch, when on
  std::vector<bool> switching_;  // per warp slot: its switch-out trap runs
  sm::Sm& sm_;
  uint32_t sm_id_;
  RenameIndexPath& path_;
  uint16_t push_id_ = 0, pop_id_ = 0;
  ptx::ControlField fru_;  // cars.fru of calls
  uint64_t claimed_ = UINT64_MAX;  // the cycle the operation port was last claimed
  CarsSmStats stats_;
  // Per warp slot: the trap's save area, one row of 32 lanes per spilled
  // stack position.
  std::vector<std::unordered_map<uint64_t, std::array<uint64_t, 32>>> saved_;
};

}  // namespace rfsim::cars
