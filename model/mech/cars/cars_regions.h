// The warps' register regions under CARS (paper, sections III-A and IV-B;
// docs/mechanisms.md): each warp gets `frame` registers (the kernel's FRU: its own
// registers) followed by the stack its block was given, one contiguous
// region of frame + stack rows, fixed for the warp's lifetime. The stack
// size is the SM's current allocation level when the block arrives (the
// adaptive state machine changes it for new blocks: cars_adaptive.h), so
// regions differ in size; they are placed first-fit in the register file
// and freed regions merge with their neighbours.
//
// A warp of an admitted block that finds no room waits in the per-SM
// stalled-warp list and never issues (concurrency is limited at issue, not
// by the block scheduler); when a warp exits, the warp status check gives
// the freed rows to the oldest stalled warp if its region fits.
//
// A kernel that reaches a barrier cannot let part of a block wait for
// registers while the rest waits at the barrier. The paper's answer is the
// barrier context switch (IV-B2; CarsSm runs it): a warp waiting at the
// barrier is switched out (switchOut: its region goes back, it waits in the
// stalled list) and a stalled warp of its block gets the rows. A warp that
// waits at a barrier does not need registers, so a grant passes over
// stalled warps that the runnable predicate says cannot run. Without the
// context switch (mechanisms.cars.context_switch: false), whole_blocks
// admits a block only when all its warps fit now.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <vector>

#include "mech/cars/rename_index_path.h"
#include "mech/cars/stalled_warps.h"

namespace rfsim::cars {

class CarsRegions final : public RegionAllocator {
 public:
  // Throws rfsim::Error when one warp's region of frame + stack does not
  // fit `rows`. `rtl`: the stalled-warp list's Verilated RTL in lockstep
  // with its reference (stalled_warps.h).
  CarsRegions(uint32_t rows, uint32_t frame, uint32_t stack, uint32_t num_warps, bool whole_blocks,
              bool rtl = false);
  // The stack the warps of blocks arriving from now on get.
  void setStack(uint32_t stack);
  uint32_t stack() const { return stack_; }

  bool canLaunch(uint32_t num_warps, uint32_t regs_per_thread) override;
  bool allocate(uint32_t block_slot, uint32_t warp_slot, uint32_t local_warp, uint32_t regs_per_thread,
                uint32_t& base) override;
  void release(uint32_t warp_slot) override;
  uint32_t stackRegs(uint32_t warp_slot) const override { return stack_of_.at(warp_slot); }
  uint32_t frameRegs(uint32_t) const override { return frame_; }
  bool grantStalled(int64_t block, uint32_t& warp_slot, uint32_t& base, bool& restore) override;
  void switchOut(uint32_t warp_slot) override;
  // Whether a stalled warp could run if it had registers (not waiting at a
  // barrier); by default every one can.
  void setRunnable(std::function<bool(uint32_t warp_slot)> f) { runnable_ = std::move(f); }
  // Told when a block's first warp arrives (before its regions are placed)
  // and when its last warp's region goes back (the block finished), by its
  // block slot: the adaptive allocation's per-block samples.
  void setBlockEvents(std::function<void(uint32_t block)> arrived, std::function<void(uint32_t block)> done) {
    arrived_ = std::move(arrived);
    done_ = std::move(done);
  }
  // The block (the SM's block slot) of a warp slot, and whether the warp
  // holds a region now.
  uint32_t blockOf(uint32_t warp_slot) const { return block_of_.at(warp_slot); }
  bool resident(uint32_t warp_slot) const { return owner_.at(warp_slot) >= 0; }
  uint32_t regionBase(uint32_t warp_slot) const { return static_cast<uint32_t>(owner_.at(warp_slot)); }
  // Stalled warps of `block` that could run.
  uint32_t runnableStalled(uint32_t block) const;
  // The stalled-warp list and the free rows, for a deadlock report.
  std::string describe() const override;
  StalledWarpList& list() { return list_; }

  uint64_t stalled_warps = 0;  // warps that waited in the stalled-warp list
  uint32_t max_stalled = 0;
  uint32_t max_resident = 0;   // most warps holding registers at once

 private:
  // First fit: the start of a free run of `n` rows, or -1.
  int64_t find(uint32_t n) const;
  void take(uint32_t start, uint32_t n);
  void giveBack(uint32_t start, uint32_t len);

  uint32_t rows_, frame_, stack_;
  bool whole_blocks_;
  std::map<uint32_t, uint32_t> free_;  // free runs: start -> length
  std::vector<int64_t> owner_;         // per warp slot: its region's start, or -1
  std::vector<uint32_t> stack_of_;     // per warp slot: the stack it was given
  std::vector<uint32_t> block_of_;     // per warp slot: its block slot
  std::vector<bool> switched_;         // per warp slot: switched out, its registers saved
  StalledWarpList list_;               // warp slots without registers, oldest first
  std::function<bool(uint32_t)> runnable_;
  std::function<void(uint32_t)> arrived_, done_;
  std::vector<uint32_t> live_;         // per block slot: its warps not yet released
  uint32_t resident_ = 0;
};

}  // namespace rfsim::cars
