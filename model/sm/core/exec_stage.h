// The execute stage: the SM's execution units, one ExecUnit per unit type
// and sub-core (none for a type without pipelines), then, once an
// instruction observer asks for them (SmHooks::observers), the scalar
// pipelines, one per scheduler. With sm.sub_cores > 1 each sub-core has its
// own units of every type but LD/ST (its pipelines split evenly: the Volta
// whitepaper's processing blocks); the LD/ST unit is the SM's, shared. Its
// latch in is ExecUnit::accept (dispatch from the operand collector), its
// latch out the write-back queue (cycle).
#pragma once

#include <array>
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
  // The unit an instruction of sub-core `sub` for `u` executes on (`scalar`:
  // the scalar pipelines). Precondition: the unit exists (opTiming falls
  // back to SP).
  ExecUnit& unit(unsigned u, bool scalar, unsigned sub = 0) {
    return scalar ? *scalar_[sub] : *by_type_[u][sub];
  }
  unsigned subCores() const { return sub_cores_; }
  // One cycle: every instruction due by `now`, unit by unit (in unit-type
  // order, sub-cores in order within a type, the scalar pipelines last), to
  // `done(tag)`.
  template <class Done>
  void cycle(uint64_t now, Done done) {
    for (auto& u : units_) {
      uint64_t tag;
      while (u->popDone(now, tag)) done(tag);
    }
  }
  // The cycle the earliest instruction in flight is due (UINT64_MAX: none).
  uint64_t nextDone() const;

 private:
  uint32_t num_schedulers_;
  uint32_t sub_cores_;
  std::vector<std::unique_ptr<ExecUnit>> units_;  // owned, in cycle() order
  // Per unit type, per sub-core: the unit (the same one for every sub-core
  // when shared; null for a type without pipelines).
  std::array<std::vector<ExecUnit*>, kNumUnitTypes> by_type_;
  std::vector<ExecUnit*> scalar_;  // per sub-core
};

}  // namespace rfsim::sm
