#include "mech/cars/cars_sm.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/error.h"
#include "mech/cars/cars_passes.h"
#include "ptx/analysis/printer.h"
#include "sm/core/sm.h"

namespace rfsim::cars {

CarsRegions::CarsRegions(uint32_t rows, uint32_t frame, uint32_t stack, uint32_t num_warps)
    : frame_(frame), stack_(stack), owner_(num_warps, -1) {
  regions_ = frame + stack ? rows / (frame + stack) : 0;
  if (regions_ == 0)
    throw Error(fmt::format("CARS: a warp's region of {} + {} registers does not fit the {} rows of the register file",
                            frame, stack, rows));
  for (size_t i = regions_; i-- > 0;) free_.push_back(static_cast<uint32_t>(i));
}

bool CarsRegions::allocate(uint32_t, uint32_t warp_slot, uint32_t, uint32_t, uint32_t& base) {
  if (free_.empty() || !stalled_.empty()) {
    stalled_.push_back(warp_slot);
    ++stalled_warps;
    max_stalled = std::max<uint32_t>(max_stalled, static_cast<uint32_t>(stalled_.size()));
    base = kStalled;
    return true;
  }
  const uint32_t r = free_.back();
  free_.pop_back();
  owner_.at(warp_slot) = static_cast<int32_t>(r);
  base = r * (frame_ + stack_);
  return true;
}

void CarsRegions::release(uint32_t warp_slot) {
  const int32_t r = owner_.at(warp_slot);
  if (r < 0) {
    // A warp that never got registers cannot have run; drop it from the list.
    stalled_.erase(std::remove(stalled_.begin(), stalled_.end(), warp_slot), stalled_.end());
    return;
  }
  owner_[warp_slot] = -1;
  free_.push_back(static_cast<uint32_t>(r));
}

bool CarsRegions::grantStalled(uint32_t& warp_slot, uint32_t& base) {
  if (stalled_.empty() || free_.empty()) return false;
  warp_slot = stalled_.front();
  stalled_.pop_front();
  const uint32_t r = free_.back();
  free_.pop_back();
  owner_.at(warp_slot) = static_cast<int32_t>(r);
  base = r * (frame_ + stack_);
  return true;
}

CarsSm::CarsSm(sm::Sm& sm, uint32_t sm_id, RenameIndexPath& path)
    : sm_(sm), sm_id_(sm_id), path_(path), fru_(ptx::registerControlField(kFruField, kFruBits)) {
  if (!ptx::findExtOp("cars.push", &push_id_) || !ptx::findExtOp("cars.pop", &pop_id_))
    throw Error("CARS: its instructions are not registered");
}

bool CarsSm::flags(const func::DInstr& d) const {
  const ptx::Op op = d.in->op;
  return op == ptx::Op::Call || op == ptx::Op::Ret ||
         (op == ptx::Op::Ext && (d.in->ext == push_id_ || d.in->ext == pop_id_));
}

void CarsSm::overflow(uint32_t slot, const func::DInstr& d, uint32_t need) const {
  throw Error(fmt::format("CARS, SM {} warp slot {}: `{}` (line {}) needs {} free registers on the warp's register "
                          "stack, {} are free ({} frames open): the stack-overflow trap (CARS IV-A) is not modelled; "
                          "give the warps more stack (mechanisms.cars.allocation: high) or run the baseline",
                          sm_id_, slot, ptx::opName(d.in->op) + std::string(d.in->op == ptx::Op::Ext ? " (push)" : ""),
                          d.in->loc.line, need, path_.freeRegs(slot), path_.frames(slot)));
}

bool CarsSm::mayIssue(uint32_t slot, const func::DInstr& d, uint64_t now) {
  ++stats_.gate_checks;
  // One operation per cycle on the unit's port.
  if (claimed_ == now || !path_.opPortFree()) {
    ++stats_.port_waits;
    return false;
  }
  if (d.in->op == ptx::Op::Call) {
    const uint32_t need = fru_.get(*d.in) + 1;
    if (path_.freeRegs(slot) < need) overflow(slot, d, need);
  } else if (d.in->op == ptx::Op::Ext && d.in->ext == push_id_) {
    const auto n = static_cast<uint32_t>(d.in->src[0].imm);
    if (path_.freeRegs(slot) < n) overflow(slot, d, n);
  }
  return true;
}

void CarsSm::issued(uint32_t slot, const func::DInstr& d, const func::StepInfo& info, uint64_t now) {
  claimed_ = now;
  if (d.in->op != ptx::Op::Ext || !info.executed) return;
  const auto n = static_cast<uint32_t>(d.in->src[0].imm);
  if (d.in->ext == push_id_) {
    path_.requestOp(Op::Push, slot, n);
    ++stats_.pushes;
  } else if (info.executed == info.frame_lanes) {
    path_.requestOp(Op::Pop, slot, n);
    ++stats_.pops;
  } else {
    ++stats_.pops_deferred;  // the frame's Ret frees them
  }
}

void CarsSm::onCall(uint32_t slot, const func::DInstr& call, uint32_t, uint32_t, uint64_t) {
  path_.requestOp(Op::Call, slot, fru_.get(*call.in));
  ++stats_.calls;
}

void CarsSm::onFrameRelease(uint32_t slot, uint32_t released, uint32_t, uint64_t) {
  // A warp whose lanes all exited inside functions ends several frames at
  // once; it is done, and its region goes back whole.
  if (released != 1 || sm_.warpDone(slot)) return;
  path_.requestOp(Op::Ret, slot, 0);
  ++stats_.rets;
}

}  // namespace rfsim::cars
