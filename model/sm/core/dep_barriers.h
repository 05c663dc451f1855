// Dependency barriers: Maxwell-style dependency control in the SM
// (sm.dependency: barriers; the codes come from backend/depctl.h). Each warp
// has 6 dependency barriers, counters: an instruction with a write barrier
// raises it at issue and lowers it when its results are written, one with
// a read barrier when its operands have been read; an instruction waits
// until every barrier of its wait mask is zero, and the warp's next
// instruction issues no earlier than the stall count of the last one allows.
//
// Our SM reads operands through operand collectors, so a fixed-latency
// result can come later than the stall counts assume (a bank conflict, a
// busy write port): the scoreboard still holds such a register and the
// warp waits for it, as Maxwell's pipeline stalls on a register bank
// conflict. A register a write barrier guards must never be found reserved:
// the code did not wait for it, which is a control-code error.
#pragma once

#include <array>
#include <bitset>
#include <cstdint>
#include <vector>

#include "func/program.h"
#include "func/stepper.h"
#include "ptx/machine.h"
#include "sm/core/sm_stats.h"
#include "sm/issue/scheduler.h"
#include "sm/issue/scoreboard.h"

namespace rfsim::sm {

class DepBarriers {
 public:
  DepBarriers(uint32_t max_warps, const func::Program& program, const Scoreboard& sb, IssueStats& stats)
      : w_(max_warps), guarded_(max_warps), program_(program), sb_(sb), stats_(stats) {}

  // A warp enters slot `slot`: no stall count, every barrier zero, nothing guarded.
  void launched(uint32_t slot) {
    w_[slot] = Warp{};
    guarded_[slot].reset();
  }
  // The warp in `slot` left: nothing guarded.
  void freed(uint32_t slot) { guarded_[slot].reset(); }
  // Whether the warp in `slot` (warp `local` of `st`) may issue `d` at
  // `now`: when its last stall count has run out and no barrier it waits on
  // is set; a register still reserved then is a fixed-latency result our
  // operand collector delayed (an interlock, counted) or, guarded by a
  // barrier the code does not wait on, a control-code error (thrown, naming
  // kernel, warp and pc).
  Stall stall(uint32_t slot, const func::BlockStepper& st, uint32_t local, const func::DInstr* d, uint64_t now);
  // The part of stall() that needs no scoreboard, without counting: 1 while
  // the warp's last stall count holds it, 2 while a barrier of `in`'s wait
  // mask is set, 0 when neither (stall() then asks the scoreboard). Asked
  // of every waiting warp every cycle (IssueStage::fastBarrierStall).
  [[gnu::always_inline]] int holds(uint32_t slot, const ptx::Instr& in, uint64_t now) const {
    const Warp& ws = w_[slot];
    if (now < ws.next && ws.pair != now) return 1;
    return (in.wait & ws.set) ? 2 : 0;
  }
  // Counts a wait holds() found, as stall() counts it.
  void countHold(int why) { ++(why == 1 ? stats_.dep_stall_count_waits : stats_.dep_barrier_waits); }
  // `d` issued from `slot`; `writes`: its results are written back (and
  // tracked). Returns the barriers it set: write barrier, read barrier (1..6; 0: none).
  std::pair<uint8_t, uint8_t> issued(uint32_t slot, const func::DInstr& d, bool writes, uint64_t now);
  // Its operands were read: its read barrier is lowered.
  void read(uint32_t slot, uint8_t rbar) {
    if (rbar) lower(w_[slot], rbar);
  }
  // Its results were written: its write barrier is lowered.
  void written(uint32_t slot, uint8_t wbar, const func::DInstr& d, bool writes);
  // The cycle after `after` in which the stall count of the warp in `slot`
  // runs out; UINT64_MAX: none pending (idle-cycle skipping).
  uint64_t nextEvent(uint32_t slot, uint64_t after) const {
    return w_[slot].next > after ? w_[slot].next : UINT64_MAX;
  }

 private:
  struct Warp {
    uint64_t next = 0;           // the cycle the last instruction's stall count lets the next one issue
    uint64_t pair = UINT64_MAX;  // the cycle its last instruction may pair in (dual issue)
    std::array<uint8_t, 6> bars{};
    uint8_t set = 0;  // bit b: bars[b] is not zero
  };
  static void raise(Warp& ws, uint8_t bar) {
    ++ws.bars[bar - 1u];
    ws.set |= uint8_t(1u << (bar - 1u));
  }
  static void lower(Warp& ws, uint8_t bar) {
    if (--ws.bars[bar - 1u] == 0) ws.set &= uint8_t(~(1u << (bar - 1u)));
  }
  std::vector<Warp> w_;  // per warp slot
  std::vector<std::bitset<ptx::mach::kNumRegIds>> guarded_;  // per slot: reserved registers a write barrier guards
  const func::Program& program_;
  const Scoreboard& sb_;
  IssueStats& stats_;
};

}  // namespace rfsim::sm
