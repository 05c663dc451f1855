// The execute stage (exec_stage.h).
#include "sm/core/exec_stage.h"

#include <algorithm>

namespace rfsim::sm {

ExecStage::ExecStage(const config::GpuConfig& cfg)
    : num_schedulers_(cfg.sm.num_schedulers), sub_cores_(cfg.sm.sub_cores) {
  for (unsigned u = 0; u < kNumUnitTypes; ++u) {
    by_type_[u].assign(sub_cores_, nullptr);
    const uint32_t n = unitCount(static_cast<UnitType>(u), cfg.pipeline);
    if (n == 0) continue;
    // Enough slots that the pipelines, not the slot array, limit throughput:
    // LDST holds long memory accesses back to back (ii 1).
    const bool ldst = static_cast<UnitType>(u) == UnitType::LDST;
    const uint32_t per = ldst ? 512 : 256;
    // The configuration checks that a split divides evenly (config_validate).
    const uint32_t groups = ldst ? 1 : sub_cores_;
    const uint32_t each = n / groups;
    for (uint32_t g = 0; g < groups; ++g) {
      units_.push_back(std::make_unique<ExecUnit>(each, each * per));
      if (ldst)
        std::fill(by_type_[u].begin(), by_type_[u].end(), units_.back().get());
      else
        by_type_[u][g] = units_.back().get();
    }
  }
}

void ExecStage::addScalarPipelines() {
  if (!scalar_.empty()) return;
  const uint32_t each = std::max(1u, num_schedulers_ / sub_cores_);
  for (uint32_t g = 0; g < sub_cores_; ++g) {
    units_.push_back(std::make_unique<ExecUnit>(each, each * 256));
    scalar_.push_back(units_.back().get());
  }
}

uint64_t ExecStage::nextDone() const {
  uint64_t next = UINT64_MAX;
  for (const auto& u : units_) next = std::min(next, u->nextDone());
  return next;
}

}  // namespace rfsim::sm
