// Two mechanisms' register hooks on one SM (stacked_hooks.h).
#include "sm/core/stacked_hooks.h"

#include "ptx/machine.h"

namespace rfsim::sm {

namespace mach = ptx::mach;

uint32_t StackedTranslator::translate(uint32_t warp, uint32_t reg) {
  return mach::isGpr(reg) ? gpr_.translate(warp, reg) : other_.translate(warp, reg);
}

bool StackedTranslator::isView(uint32_t reg) const {
  return mach::isGpr(reg) ? gpr_.isView(reg) : other_.isView(reg);
}

void StackedTranslator::gather(uint32_t warp, uint32_t reg, uint32_t row, const ptx::Instr* in, uint64_t* lanes) {
  if (mach::isGpr(reg))
    gpr_.gather(warp, reg, row, in, lanes);
  else
    other_.gather(warp, reg, row, in, lanes);
}

void StackedTranslator::scatter(uint32_t warp, uint32_t reg, uint32_t row, const uint64_t* lanes, uint32_t active) {
  if (mach::isGpr(reg))
    gpr_.scatter(warp, reg, row, lanes, active);
  else
    other_.scatter(warp, reg, row, lanes, active);
}

bool StackedAllocator::allocate(uint32_t block_slot, uint32_t warp_slot, uint32_t local_warp,
                                uint32_t regs_per_thread, uint32_t& base) {
  uint32_t unused = 0;
  if (!first_.allocate(block_slot, warp_slot, local_warp, regs_per_thread, unused)) return false;
  if (second_.allocate(block_slot, warp_slot, local_warp, regs_per_thread, base)) return true;
  first_.release(warp_slot);
  return false;
}

}  // namespace rfsim::sm
