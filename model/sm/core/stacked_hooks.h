// The adapters that stack two mechanisms' register hooks on one SM
// (sm_hooks.h "Stacked"; docs/mechanisms.md "Composition"): a later
// mechanism that places the general registers itself, attached over an
// earlier one that installed a translator and allocator for register
// classes of its own. Sm::install makes them; nothing else does.
#pragma once

#include <algorithm>

#include "sm/core/hooks.h"
#include "sm/opcoll/bank_map.h"

namespace rfsim::sm {

class StackedTranslator final : public RegTranslator {
 public:
  StackedTranslator(RegTranslator& gpr, RegTranslator& other) : gpr_(gpr), other_(other) {}
  uint32_t translate(uint32_t warp, uint32_t reg) override;
  void endCycle(uint64_t now) override {
    gpr_.endCycle(now);
    other_.endCycle(now);
  }
  uint64_t nextEventCycle(uint64_t now) const override {
    return std::min(gpr_.nextEventCycle(now), other_.nextEventCycle(now));
  }
  bool isView(uint32_t reg) const override;
  void gather(uint32_t warp, uint32_t reg, uint32_t row, const ptx::Instr* in, uint64_t* lanes) override;
  void scatter(uint32_t warp, uint32_t reg, uint32_t row, const uint64_t* lanes, uint32_t active) override;

 private:
  RegTranslator& gpr_;
  RegTranslator& other_;
};

class StackedAllocator final : public WarpRegAllocator {
 public:
  // `first`: the earlier mechanism's (its base is not used); `second`: the
  // one placing the general registers.
  StackedAllocator(WarpRegAllocator& first, WarpRegAllocator& second) : first_(first), second_(second) {}
  bool canLaunch(uint32_t num_warps, uint32_t regs_per_thread) override {
    return first_.canLaunch(num_warps, regs_per_thread) && second_.canLaunch(num_warps, regs_per_thread);
  }
  bool allocate(uint32_t block_slot, uint32_t warp_slot, uint32_t local_warp, uint32_t regs_per_thread,
                uint32_t& base) override;
  void release(uint32_t warp_slot) override {
    second_.release(warp_slot);
    first_.release(warp_slot);
  }
  bool ready(uint32_t warp_slot) const override { return first_.ready(warp_slot) && second_.ready(warp_slot); }
  Stall waitStall(uint32_t warp_slot) const override {
    return first_.ready(warp_slot) ? second_.waitStall(warp_slot) : first_.waitStall(warp_slot);
  }
  uint64_t nextEventCycle(uint64_t now) const override {
    return std::min(first_.nextEventCycle(now), second_.nextEventCycle(now));
  }
  std::string describe() const override { return first_.describe() + second_.describe(); }

 private:
  WarpRegAllocator& first_;
  WarpRegAllocator& second_;
};

// Two mechanisms' launch hooks: both hear of every warp; the role and the
// starting PC are the first's (the earlier mechanism's), the second's PC
// where the first has none.
class StackedLaunchHook final : public WarpLaunchHook {
 public:
  StackedLaunchHook(WarpLaunchHook& first, WarpLaunchHook& second) : first_(first), second_(second) {}
  uint32_t onWarpLaunch(uint32_t warp_slot, rt::Dim3 ctaid, uint32_t local_warp) override {
    const uint32_t role = first_.onWarpLaunch(warp_slot, ctaid, local_warp);
    second_.onWarpLaunch(warp_slot, ctaid, local_warp);
    return role;
  }
  uint32_t startPc(uint32_t warp_slot, const func::BlockStepper& block, uint32_t local_warp) override {
    const uint32_t pc = first_.startPc(warp_slot, block, local_warp);
    return pc != kEntryPc ? pc : second_.startPc(warp_slot, block, local_warp);
  }
  void onWarpExit(uint32_t warp_slot) override {
    second_.onWarpExit(warp_slot);
    first_.onWarpExit(warp_slot);
  }

 private:
  WarpLaunchHook& first_;
  WarpLaunchHook& second_;
};

}  // namespace rfsim::sm
