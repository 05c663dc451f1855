// The execute stage (exec_stage.h).
#include "sm/core/exec_stage.h"

#include <algorithm>

namespace rfsim::sm {

ExecStage::ExecStage(const config::GpuConfig& cfg) : num_schedulers_(cfg.sm.num_schedulers) {
  units_.resize(kNumUnitTypes);
  for (unsigned u = 0; u < kNumUnitTypes; ++u) {
    const uint32_t n = unitCount(static_cast<UnitType>(u), cfg.pipeline);
    if (n == 0) continue;
    // Enough slots that the pipelines, not the slot array, limit throughput:
    // LDST holds long memory accesses back to back (ii 1).
    const uint32_t per = static_cast<UnitType>(u) == UnitType::LDST ? 512 : 256;
    units_[u] = std::make_unique<ExecUnit>(n, n * per);
  }
}

void ExecStage::addScalarPipelines() {
  if (units_.size() == kNumUnitTypes)
    units_.push_back(std::make_unique<ExecUnit>(num_schedulers_, num_schedulers_ * 256));
}

uint64_t ExecStage::nextDone() const {
  uint64_t next = UINT64_MAX;
  for (const auto& u : units_)
    if (u) next = std::min(next, u->nextDone());
  return next;
}

}  // namespace rfsim::sm
