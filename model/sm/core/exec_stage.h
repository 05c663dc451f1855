// The execute stage: the SM's execution units, one ExecUnit per unit type
// (none for a type without pipelines), then, once an instruction observer
// asks for them (SmHooks::observers), the scalar pipelines, one per
// scheduler. Its latch in is ExecUnit::accept (dispatch from the operand
// collector), its latch out the write-back queue (cycle).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "config/gpu_config.h"
#include "sm/issue/exec_unit.h"
#include "sm/issue/op_class.h"

namespace rfsim::sm {

class ExecStage {
 public:
  explicit ExecStage(const config::GpuConfig& cfg);
  // The scalar pipelines (InstrObserver::scalar); a second call adds none.
  void addScalarPipelines();
  // The unit an instruction for `u` executes on (`scalar`: the scalar
  // pipelines). Precondition: the unit exists (opTiming falls back to SP).
  ExecUnit& unit(unsigned u, bool scalar) { return scalar ? *units_.back() : *units_[u]; }
  // One cycle: every instruction due by `now`, unit by unit (in unit-type
  // order, the scalar pipelines last), to `done(tag)`.
  template <class Done>
  void cycle(uint64_t now, Done done) {
    for (auto& u : units_) {
      if (!u) continue;
      uint64_t tag;
      while (u->popDone(now, tag)) done(tag);
    }
  }
  // The cycle the earliest instruction in flight is due (UINT64_MAX: none).
  uint64_t nextDone() const;

 private:
  uint32_t num_schedulers_;
  std::vector<std::unique_ptr<ExecUnit>> units_;
};

}  // namespace rfsim::sm
