#include "mech/cars/cars_sm.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/error.h"
#include "mech/cars/cars_passes.h"
#include "ptx/analysis/printer.h"
#include "sm/core/sm.h"

namespace rfsim::cars {

CarsSm::CarsSm(sm::Sm& sm, uint32_t sm_id, RenameIndexPath& path, CarsRegions* regions)
    : regions_(regions),
      switching_(path.unit().params().num_warps, false),
      sm_(sm),
      sm_id_(sm_id),
      path_(path),
      fru_(ptx::registerControlField(kFruField, kFruBits)),
      saved_(path.unit().params().num_warps) {
  if (!ptx::findExtOp("cars.push", &push_id_) || !ptx::findExtOp("cars.pop", &pop_id_))
    throw Error("CARS: its instructions are not registered");
  if (regions_) {
    // A stalled warp waiting at a barrier (switched out there) needs no
    // registers until the barrier opens.
    regions_->setRunnable([this](uint32_t w) { return sm_.warpStatus(w) == func::WarpStatus::Ready; });
    path_.setRestoreHook([this](uint32_t w, uint32_t base) { restore(w, base); });
  }
}

bool CarsSm::flags(const func::DInstr& d) const {
  const ptx::Op op = d.in->op;
  return op == ptx::Op::Call || op == ptx::Op::Ret ||
         (op == ptx::Op::Ext && (d.in->ext == push_id_ || d.in->ext == pop_id_)) ||
         (regions_ && op == ptx::Op::Bar);
}

void CarsSm::barrierIssued(uint32_t slot) {
  const uint32_t block = regions_->blockOf(slot);
  if (sm_.warpStatus(slot) != func::WarpStatus::AtBarrier) {
    // The barrier opened: warps switched out at it may run again.
    path_.grantWaiting();
    return;
  }
  // Stalled warps of the block that could reach the barrier, less the
  // switches already under way for them.
  uint32_t want = regions_->runnableStalled(block);
  const uint32_t nw = static_cast<uint32_t>(switching_.size());
  for (uint32_t w = 0; w < nw && want; ++w)
    if (switching_[w] && regions_->blockOf(w) == block) --want;
  if (!want) return;
  // The warp that just arrived, or another of its block waiting there.
  auto movable = [&](uint32_t w) {
    if (switching_[w] || !regions_->resident(w) || !path_.ready(w) || regions_->blockOf(w) != block ||
        sm_.warpStatus(w) != func::WarpStatus::AtBarrier)
      return false;
    const RenameIndexPath::WarpStack& st = path_.stack(w);
    return st.saved.empty() && st.rsp == st.rfp;
  };
  int64_t pick = movable(slot) ? slot : -1;
  for (uint32_t w = 0; w < nw && pick < 0; ++w)
    if (movable(w)) pick = w;
  if (pick < 0) return;  // every waiting warp is inside a function: none moves
  const auto w = static_cast<uint32_t>(pick);
  const RenameIndexPath::WarpStack& st = path_.stack(w);
  std::vector<sm::TrapOp> ops;
  for (uint32_t r = 0; st.base + r < st.lo; ++r) {
    sm::TrapOp op;
    op.store = true;
    op.offset = r * kSlotBytes;  // the stack's save area, empty at depth 0
    op.cookie = kCtxCookie | r;
    op.row = st.base + r;
    ops.push_back(op);
  }
  switching_[w] = true;
  sm_.trap(w, ops, this);
}

void CarsSm::trapDone(uint32_t slot, uint64_t) {
  if (!regions_ || !switching_.at(slot)) return;
  switching_[slot] = false;
  auto& area = saved_.at(slot);
  for (const auto& [cookie, row] : area) stats_.ctx_saved_regs += (cookie & kCtxCookie) != 0;  // stored either way
  if (regions_->runnableStalled(regions_->blockOf(slot)) == 0) {
    // Nobody needs the rows any more (the barrier opened meanwhile): the
    // warp keeps them; its values never left.
    for (auto it = area.begin(); it != area.end();)
      it = it->first & kCtxCookie ? area.erase(it) : std::next(it);
    ++stats_.ctx_cancelled;
    return;
  }
  ++stats_.ctx_switches;
  path_.switchOut(slot, regions_->blockOf(slot));
}

void CarsSm::restore(uint32_t slot, uint32_t base) {
  std::vector<sm::TrapOp> ops;
  for (const auto& [cookie, row] : saved_.at(slot)) {
    if (!(cookie & kCtxCookie)) continue;
    sm::TrapOp op;
    op.store = false;
    op.offset = (cookie & ~kCtxCookie) * kSlotBytes;
    op.cookie = static_cast<uint32_t>(cookie);
    op.row = base + (cookie & ~kCtxCookie);
    ops.push_back(op);
  }
  std::sort(ops.begin(), ops.end(), [](const sm::TrapOp& a, const sm::TrapOp& b) { return a.row < b.row; });
  ++stats_.ctx_restores;
  stats_.ctx_restored_regs += ops.size();
  sm_.trap(slot, ops, this);
}

void CarsSm::overflow(uint32_t slot, const func::DInstr& d, uint32_t need) const {
  throw Error(fmt::format("CARS, SM {} warp slot {}: `{}` (line {}) needs {} registers on the warp's register stack, "
                          "which holds {} ({} free, {} frames open): {}",
                          sm_id_, slot, ptx::opName(d.in->op) + std::string(d.in->op == ptx::Op::Ext ? " (push)" : ""),
                          d.in->loc.line, need, path_.stack(slot).k, path_.freeRegs(slot), path_.frames(slot),
                          d.in->op == ptx::Op::Call
                              ? "a frame larger than the whole stack cannot be made to fit by the overflow trap; give "
                                "the warps more stack (mechanisms.cars.allocation: high) or run the baseline"
                              : "a push beyond its frame's FRU (the compiler's call carries the callee's FRU)"));
}

std::vector<sm::TrapOp> CarsSm::trapOps(uint32_t slot, uint64_t from, uint64_t to, bool store) const {
  const RenameIndexPath::WarpStack& st = path_.stack(slot);
  std::vector<sm::TrapOp> ops;
  for (uint64_t p = from; p < to; ++p) {
    sm::TrapOp op;
    op.store = store;
    op.offset = static_cast<uint32_t>(p * kSlotBytes);
    op.cookie = static_cast<uint32_t>(p);
    op.row = st.row(p);
    ops.push_back(op);
  }
  return ops;
}

void CarsSm::spillFor(uint32_t slot, const func::DInstr& d, uint32_t need) {
  const RenameIndexPath::WarpStack& st = path_.stack(slot);
  if (st.k < need) overflow(slot, d, need);
  // The oldest frames go first, whole (CARS IV-A, Fig. 6): from the bottom
  // up to the next frame's start, or to RSP for the newest.
  uint64_t bottom = st.bottom;
  uint64_t free = st.free;
  while (free < need) {
    uint64_t end = st.rsp;
    for (uint64_t f : st.starts)
      if (f > bottom) {
        end = f;
        break;
      }
    free += end - bottom;
    bottom = end;
  }
  const auto n = static_cast<uint32_t>(bottom - st.bottom);
  sm_.trap(slot, trapOps(slot, st.bottom, bottom, true), this);
  path_.queueTrapOp(Op::Spill, slot, n);
  ++stats_.overflow_traps;
  stats_.spilled_regs += n;
}

bool CarsSm::mayIssue(uint32_t slot, const func::DInstr& d, uint64_t now) {
  if (d.in->op == ptx::Op::Bar) return true;  // flagged to be told when it issued
  ++stats_.gate_checks;
  // A trap's Spill or Fill waiting for the port: the free count is not final.
  if (path_.trapOpsQueued(slot)) {
    ++stats_.port_waits;
    return false;
  }
  // One operation per cycle on the unit's port.
  if (claimed_ == now || !path_.opPortFree()) {
    ++stats_.port_waits;
    return false;
  }
  if (d.in->op == ptx::Op::Call) {
    const uint32_t need = fru_.get(*d.in) + 1;
    if (path_.freeRegs(slot) < need) {
      spillFor(slot, d, need);  // the warp traps; the call is tried again after it
      return false;
    }
  } else if (d.in->op == ptx::Op::Ext && d.in->ext == push_id_) {
    const auto n = static_cast<uint32_t>(d.in->src[0].imm);
    const RenameIndexPath::WarpStack& st = path_.stack(slot);
    if (st.free < n || st.rsp - st.rfp + n >= st.k) overflow(slot, d, n);
  }
  return true;
}

void CarsSm::issued(uint32_t slot, const func::DInstr& d, const func::StepInfo& info, uint64_t now) {
  if (d.in->op == ptx::Op::Bar) {
    barrierIssued(slot);
    return;
  }
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
  if (released != 1 || sm_.warpDone(slot)) {
    saved_.at(slot).clear();
    return;
  }
  // Control returns to the caller: when the overflow trap spilled its frame,
  // a trap fills it back (CARS IV-A) after the Ret. The caller's frame is
  // [its start, the callee's start); the stack before the Ret is read here.
  const RenameIndexPath::WarpStack& st = path_.stack(slot);
  const size_t n = st.starts.size();
  const uint64_t caller_start = n >= 2 ? st.starts[n - 2] : 0;
  path_.requestOp(Op::Ret, slot, 0);
  ++stats_.rets;
  if (n >= 1 && st.bottom > caller_start) {
    const auto regs = static_cast<uint32_t>(st.bottom - caller_start);
    sm_.trap(slot, trapOps(slot, caller_start, st.bottom, false), this);
    path_.queueTrapOp(Op::Fill, slot, regs);
    ++stats_.fill_traps;
    stats_.filled_regs += regs;
  }
}

void CarsSm::trapOpDone(uint32_t slot, const sm::TrapOp& op, uint64_t) {
  auto& area = saved_.at(slot);
  uint64_t* row = sm_.registerRows().row(op.row);
  if (op.store) {
    std::copy_n(row, 32, area[op.cookie].begin());
    return;
  }
  auto it = area.find(op.cookie);
  if (it == area.end())
    throw Error(fmt::format("CARS, SM {} warp slot {}: the trap fills stack position {} that was never spilled", sm_id_,
                            slot, op.cookie));
  std::copy_n(it->second.begin(), 32, row);
  area.erase(it);
}

}  // namespace rfsim::cars
