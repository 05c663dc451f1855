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
// CARS' operations go through the unit's operation port, one per cycle
// (CARS section IV-B): requestOp() queues a Call, Ret, Push or Pop of an
// instruction issued this cycle; endCycle presents it (before a trap's
// Spill or Fill, queued by queueTrapOp, and before a waiting Launch) and
// clocks it in. A Call writes the caller's RFP into the
// register-file row the unit names (save_idx), a Ret reads it back from
// restore_idx: through RowAccess, the SM's physical register rows.
//
// The path keeps its own shadow of every warp's frames, written from the
// rule of CARS section III-A and independent of both models: positions on
// an unbounded logical stack (RFP, RSP, the spilled bottom, frame starts,
// saved RFPs), each mapped to a row as stack start + position mod K (the
// circular stack of section IV-A). It checks every rename, every
// operation's outcome and every saved RFP read back against it: an oracle
// beside the lockstep comparison. The overflow trap (cars_sm.h) plans its
// spills and fills from it.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
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
  stats::Scalar call_ops, ret_ops, push_ops, pop_ops;  // operations of issued instructions applied
  stats::Scalar spill_ops, fill_ops;  // the overflow trap's operations applied
  stats::Scalar granted;         // stalled warps given registers when another warp exited or switched out
  stats::Scalar switched_out;    // warps switched out at a barrier (CARS IV-B2)
  stats::Scalar restored;        // grants to switched-out warps
};

// The warps' register allocation behind the path: by default the
// baseline's (Base = warp slot x registers per thread, no stack); CARS'
// allocator (cars_sm.h) gives regions with a stack and a stalled-warp list.
class RegionAllocator : public sm::WarpRegAllocator {
 public:
  // The base of a warp allocate() deferred (the warp has no register space
  // yet: CARS' stalled-warp list).
  static constexpr uint32_t kStalled = UINT32_MAX;
  bool canLaunch(uint32_t, uint32_t) override { return true; }
  bool allocate(uint32_t, uint32_t warp_slot, uint32_t, uint32_t regs_per_thread, uint32_t& base) override {
    base = warp_slot * regs_per_thread;
    return true;
  }
  void release(uint32_t) override {}
  // Registers of the in-register stack warp `warp_slot` got with its region.
  virtual uint32_t stackRegs(uint32_t warp_slot) const {
    (void)warp_slot;
    return 0;
  }
  // Registers of a warp's Base region for a kernel of `regs_per_thread`.
  virtual uint32_t frameRegs(uint32_t regs_per_thread) const { return regs_per_thread; }
  // After release() or switchOut(): a stalled warp that now gets registers
  // (its slot and base), or false. `block` >= 0: only a warp of that block.
  // `restore`: the warp ran before and was switched out (its registers are
  // in its save area, to be filled back into the new rows).
  virtual bool grantStalled(int64_t block, uint32_t& warp_slot, uint32_t& base, bool& restore) {
    (void)block, (void)warp_slot, (void)base, (void)restore;
    return false;
  }
  // The barrier context switch (CARS IV-B2): warp `warp_slot`, its
  // registers saved, gives its region back and waits in the stalled-warp
  // list until it is granted one again.
  virtual void switchOut(uint32_t warp_slot);
};

class RenameIndexPath final : public sm::RegTranslator, public sm::WarpRegAllocator {
 public:
  // `unit`: RenameLockstep (RTL and reference), RenameRef or RenameRtl; its
  // parameters give the warps and rows it covers. `inner` decides the bases
  // and stacks (nullptr: the baseline, warp slot x registers per thread).
  RenameIndexPath(std::unique_ptr<RenameUnit> unit, RegionAllocator* inner = nullptr,
                  stats::Group* stats_parent = nullptr);

  // The unit the configuration asks for: mechanisms.cars.rtl (RenameLockstep) or the
  // reference alone, with cars.rename_ports ports; checks that the Verilated
  // build covers the SM (sm.max_warps warps, the register file's rows).
  static std::unique_ptr<RenameUnit> unitFor(const config::GpuConfig& cfg);

  // sm::RegTranslator
  uint32_t translate(uint32_t warp, uint32_t reg) override;
  void endCycle(uint64_t now) override;
  // RegTranslator and WarpRegAllocator: the unit's state changes only
  // through its operation port; with nothing queued an idle SM may skip
  // cycles (they are not clocked).
  uint64_t nextEventCycle(uint64_t now) const override {
    return op_.valid || !trap_ops_.empty() || !launches_.empty() ? now : UINT64_MAX;
  }

  // sm::WarpRegAllocator
  bool canLaunch(uint32_t num_warps, uint32_t regs_per_thread) override;
  bool allocate(uint32_t block_slot, uint32_t warp_slot, uint32_t local_warp, uint32_t regs_per_thread,
                uint32_t& base) override;
  void release(uint32_t warp_slot) override;
  bool ready(uint32_t warp_slot) const override { return warp_slot >= pending_.size() || !pending_[warp_slot]; }
  std::string describe() const override;

  // The register file's rows that hold saved RFPs (a warp-register each).
  struct RowAccess {
    std::function<void(uint32_t row, uint32_t value)> write;
    std::function<uint32_t(uint32_t row)> read;
  };
  void setRowAccess(RowAccess a) { rows_ = std::move(a); }
  // An operation of an instruction warp `warp` issued this cycle: Call (n:
  // the callee's FRU), Ret, Push or Pop (n registers). One per cycle
  // (opPortFree); applied at the end of the cycle. Throws rfsim::Error when
  // the unit refuses it (the caller checks room first: freeRegs).
  void requestOp(Op op, uint32_t warp, uint32_t n);
  // The barrier context switch (CARS IV-B2): `warp`, its registers saved
  // to local memory, has no register space until a grant gives it a
  // region again (a Launch at the new Base); its rows go to a stalled
  // warp of block `block` at once.
  void switchOut(uint32_t warp, int64_t block);
  // Grants regions to stalled warps while they fit (a barrier released
  // switched-out warps, which may run again).
  void grantWaiting();
  // Told of every grant to a switched-out warp (its slot and new Base), so
  // that a trap fills its registers back into the new rows.
  void setRestoreHook(std::function<void(uint32_t warp, uint32_t base)> f) { restore_ = std::move(f); }
  bool opPortFree() const { return !op_.valid; }
  // A trap's Spill or Fill of n registers of `warp`: applied in the first
  // cycle the port has no issued instruction's operation, in order.
  void queueTrapOp(Op op, uint32_t warp, uint32_t n);
  bool trapOpsQueued(uint32_t warp) const;

  // A warp's stack as the rule of sections III-A and IV-A has it: logical
  // positions, [0, bottom) spilled to local memory by the overflow trap.
  struct WarpStack {
    uint32_t base = 0, lo = 0, k = 0;  // Base, the stack's first row, its size K
    uint64_t rfp = 0, rsp = 0, bottom = 0;
    uint32_t free = 0;
    std::vector<uint64_t> saved;   // caller RFPs of the open frames, innermost last
    std::vector<uint64_t> starts;  // each open frame's first position (its saved RFP)
    uint32_t row(uint64_t pos) const { return k ? lo + static_cast<uint32_t>(pos % k) : lo; }
  };
  const WarpStack& stack(uint32_t warp) const { return shadow_.at(warp); }
  // The shadow's free registers and stack depth of a warp (the unit's free
  // counter and RSP - RFP must agree).
  uint32_t freeRegs(uint32_t warp) const { return shadow_.at(warp).free; }
  uint32_t frames(uint32_t warp) const { return static_cast<uint32_t>(shadow_.at(warp).saved.size()); }

  RenameUnit& unit() { return *unit_; }
  IndexPathStats& stats() { return stats_; }

 private:
  struct Launch {
    uint32_t warp, base, frame, stack;
    uint64_t queued_cycle;
  };
  using Shadow = WarpStack;
  struct TrapOpReq {
    Op op;
    uint32_t warp, n;
  };
  void evaluate();
  void applyOp();
  void present(const OpRequest& op);
  void applyLaunch(uint64_t now);
  [[noreturn]] void fail(const std::string& what) const;
  [[noreturn]] void failRename(uint32_t warp, uint32_t reg, uint32_t port) const;
  // CARS III-A's rule for warp's Rx: the row, and whether it is stacked.
  struct Expected {
    uint32_t row;
    bool stacked;
  };
  Expected expected(uint32_t warp, uint32_t reg) const;
  // The unit's debug port shows warp's state, and it differs from the shadow's.
  bool debugDiffers(uint32_t warp) const;
  bool grant(int64_t block);

  std::unique_ptr<RenameUnit> unit_;
  RegionAllocator base_alloc_;
  RegionAllocator* inner_;
  RenameParams p_;
  IndexPathStats stats_;
  Inputs in_{};
  Outputs out_{};
  OpRequest op_{};            // this cycle's operation from an issued instruction
  uint32_t ports_used_ = 0;   // rename ports filled this cycle
  uint32_t cycle_renames_ = 0;
  bool evaluated_ = false;    // out_ holds this cycle's operation outputs
  std::deque<Launch> launches_;
  std::deque<TrapOpReq> trap_ops_;
  std::vector<uint8_t> pending_;  // per warp: no register space yet, or Launch not applied yet
  std::vector<Shadow> shadow_;
  // Per warp: its shadow's Base, RFP and RSP as rows at the index's width
  // (what the unit's debug port shows), kept by syncRows wherever the
  // shadow changes, for the check of every rename.
  struct ShadowRows {
    uint32_t base = 0, rfp = 0, rsp = 0;
  };
  std::vector<ShadowRows> shadow_rows_;
  void syncRows(uint32_t warp);
  RowAccess rows_;
  std::function<void(uint32_t, uint32_t)> restore_;
  uint32_t regs_per_thread_ = 0;  // of the launch (the Base region of a stalled warp granted later)
  uint64_t now_ = 0;         // the cycle being evaluated (for messages)
  uint64_t next_cycle_ = 0;  // the cycle a Launch queued now is first presented in
};

}  // namespace rfsim::cars
