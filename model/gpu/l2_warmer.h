// Functional warming of the L2 (sim.sample_warm_l2; docs/sampling.md): the
// global accesses of thread blocks run in the functional model go to the
// L2's tags as the L1D would send them (the coalescer's lines and sectors; a
// load, store or atomic as the slice takes it), so that the launches after
// them find the lines those blocks read and the dirty lines they wrote, as
// after a run in detail. The L1Ds are left as they were; local memory is
// not warmed. Used for the blocks a cut launch leaves (kernel_runner.cpp)
// and for a skipped launch with sim.sample_warm_skipped (runtime.cpp).
#pragma once

#include <cstdint>

#include "func/executor.h"
#include "func/stepper.h"
#include "mem/coalescer.h"
#include "mem/tlm/hierarchy.h"

namespace rfsim::gpu {

class L2Warmer final : public func::AccessSink {
 public:
  L2Warmer(mem::MemoryHierarchy& hier, uint32_t line_bytes)
      : hier_(hier), coalescer_(mem::CoalescerParams{line_bytes, mem::kSectorBytes}) {}
  void access(const func::MemAccess& m) override {
    if (m.space != ptx::Space::Global) return;
    coalescer_.coalesce(m, reqs_);
    for (const mem::LineRequest& r : reqs_) hier_.warmL2(r.line_addr, r.sector_mask, r.write);
    lines_ += reqs_.size();
  }
  // Line requests sent to the L2 so far (gpu.sample.l2_lines_warmed).
  uint64_t lines() const { return lines_; }

 private:
  mem::MemoryHierarchy& hier_;
  mem::Coalescer coalescer_;
  mem::RequestList reqs_;
  uint64_t lines_ = 0;
};

}  // namespace rfsim::gpu
