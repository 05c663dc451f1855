// What changes which warp issues (sm.h, docs/sm.md extension point (i)):
// the static warp limit (warp_limit.h) and traps (trap_queue.h) -- spills and
// fills a mechanism injects before a warp's next instruction, issued and
// timed here as real local memory operations.
#include <algorithm>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "common/error.h"
#include "sm/core/sm.h"
#include "sm/core/sm_internal.h"

namespace rfsim::sm {

void Sm::updateWarpLimit() {
  limit_.reorder(static_cast<uint32_t>(slots_.size()), [this](uint32_t s, uint64_t& age) {
    age = slots_[s].age;
    return slots_[s].used;
  });
}

void Sm::refreshWarpLimit() {
  limit_.refresh([this](uint32_t s) {
    const WarpSlot& ws = slots_[s];
    return ws.used && !traps_.active(s) && blocks_[ws.block] &&
           blocks_[ws.block]->stepper->status(ws.local) == func::WarpStatus::AtBarrier;
  });
}

void Sm::trap(uint32_t s, const std::vector<TrapOp>& ops, TrapListener* listener) {
  if (!slots_.at(s).used) throw Error(fmt::format("Sm::trap: warp slot {} holds no warp", s));
  traps_.add(s, ops, listener);
}

Stall Sm::trapStall(uint32_t s) {
  if (traps_.allIssued(s)) {  // all issued: wait for the last to complete
    ++stats_->issue.trap_wait_cycles;
    return Stall::Scoreboard;
  }
  const TrapQueue::Entry& e = traps_.peek(s);
  const func::DInstr& d = e.d;
  if (e.op.row != TrapOp::kNoRow) {
    if (slots_[s].inflight > traps_.inflight(s)) return Stall::Scoreboard;  // the warp's own instructions drain first
  } else if (sb_.hazardOf(s, d.reads.data(), d.nreads, d.writes.data(), d.nwrites)) {
    return Stall::Scoreboard;
  }
  if (!opc_->canAllocate(UnitType::LDST)) return Stall::CollectorFull;
  return Stall::None;
}

void Sm::issueTrap(uint32_t s, uint64_t now) {
  WarpSlot& ws = slots_[s];
  const TrapQueue::Entry& e = traps_.pop(s);
  ++stats_->issue.trap_ops;
  const OpTiming tm = opTiming(e.in, cfg_);
  // A whole register-file row: all 32 lanes, whatever the warp's mask.
  func::MemAccess a;
  a.space = ptx::Space::Local;
  a.write = e.op.store;
  a.bytes = 4;
  a.mask = 0xffffffffu;
  a.addr.fill(e.op.offset);
  const uint64_t latency = mem_->accessLatency(a, s, now);
  ++stats_->mem_accesses;
  if (e.op.store) ++stats_->ldst.trap_stores; else ++stats_->ldst.trap_loads;
  const uint32_t tag = allocInflight();
  Inflight& f = inflight_[tag];
  f.slot = s;
  f.pc = 0;
  f.d = &e.d;
  f.unit = tm.unit;
  f.exec_latency = static_cast<uint32_t>(latency > kStageOverhead ? latency - kStageOverhead : 1);
  f.ii = tm.ii;
  f.writes = !e.op.store;
  f.long_latency = !e.op.store;
  f.mem = true;
  f.written = 0;
  f.trap = &e;
  f.wbar = f.rbar = 0;  // a trap's operations are ordered by the trap, not by barriers
  ++ws.inflight;
  ++ws.mem_pending;
  const bool by_row = e.op.row != TrapOp::kNoRow;
  if (by_row) {
    if (regs_.on() && e.op.row >= regs_.count())
      throw Error(fmt::format("Sm::trap: warp slot {}: row {} outside the register file's {} rows", s, e.op.row,
                              regs_.count()));
    f.rows_known = true;
    f.wrow[0] = e.op.row;
  } else if (f.writes) {
    const uint32_t w = e.op.reg;
    sb_.reserve(s, &w, 1, true);
  }
  RFSIM_SM_TRACE_EV(s, "trap {} R{} offset {} tag {} latency {}", e.op.store ? "spill" : "fill", e.op.reg,
                    e.op.offset, tag, latency);
  if (!opc_->allocate(s, tm.unit, e.d.reads.data(), e.d.nreads, tag, by_row ? &e.op.row : nullptr))
    throw Error("Sm::issueTrap: collector allocation failed after canAllocate");
}

}  // namespace rfsim::sm
