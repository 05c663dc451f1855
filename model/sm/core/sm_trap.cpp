// What changes which warp issues (sm.h, docs/sm.md extension points (h)
// and (i)): the static warp limit, activation hooks of the schedulers, and
// traps -- spills and fills a mechanism injects before a
// warp's next instruction, issued and timed as real local memory operations.
#include <algorithm>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "common/error.h"
#include "sm/core/sm.h"
#include "sm/core/sm_internal.h"

namespace rfsim::sm {

void Sm::updateWarpLimit() {
  // CCWS' static warp limiting: the warp_limit oldest resident warps issue,
  // the others wait until one of them exits -- or waits at a barrier: a warp
  // held back must be able to reach the barrier its block waits at, or the
  // block never gets past it. The order by age is kept here, when a warp
  // comes or goes; the mask is made every cycle (refreshWarpLimit, from
  // issue) as warps reach and leave barriers.
  std::vector<std::pair<uint64_t, uint32_t>> by_age;
  for (uint32_t s = 0; s < slots_.size(); ++s)
    if (slots_[s].used) by_age.emplace_back(slots_[s].age, s);
  std::sort(by_age.begin(), by_age.end());
  swl_order_.clear();
  for (const auto& a : by_age) swl_order_.push_back(a.second);
}

void Sm::refreshWarpLimit() {
  swl_mask_ = 0;
  uint32_t n = 0;
  for (uint32_t s : swl_order_) {
    if (n == cfg_.sm.warp_limit) break;
    const WarpSlot& ws = slots_[s];
    // A warp at a barrier (with no trap to run) neither issues nor counts.
    if (ws.used && !ws.trap && blocks_[ws.block] &&
        blocks_[ws.block]->stepper->status(ws.local) == func::WarpStatus::AtBarrier)
      continue;
    swl_mask_ |= 1ull << s;
    ++n;
  }
}

void Sm::trap(uint32_t s, const std::vector<TrapOp>& ops, TrapListener* listener) {
  WarpSlot& ws = slots_.at(s);
  if (!ws.used) throw Error(fmt::format("Sm::trap: warp slot {} holds no warp", s));
  if (ops.empty()) return;
  if (!ws.trap) ws.trap = std::make_unique<Trap>();
  Trap& t = *ws.trap;
  if (listener) t.listener = listener;
  for (const TrapOp& op : ops) {
    if (op.reg >= ptx::mach::kPredBase)
      throw Error(fmt::format("Sm::trap: warp slot {}: register {} is not a general register", s, op.reg));
    TrapEntry& e = t.ops.emplace_back();
    e.op = op;
    // The instruction a trap handler would run: st.local.b32 [offset], R /
    // ld.local.b32 R, [offset], 4 bytes per lane.
    e.in.op = op.store ? ptx::Op::St : ptx::Op::Ld;
    e.in.space = ptx::Space::Local;
    e.in.type = ptx::Type::B32;
    e.in.role = op.store ? ptx::MRole::Spill : ptx::MRole::Fill;
    e.d.in = &e.in;
    e.d.cls = op.store ? func::Cls::St : func::Cls::Ld;
    e.d.bytes = 4;
    e.d.role = static_cast<uint8_t>(e.in.role);
    if (op.store) {
      e.d.reads[0] = op.reg;
      e.d.nreads = 1;
    } else {
      e.d.writes[0] = op.reg;
      e.d.nwrites = 1;
    }
  }
}

Stall Sm::trapStall(uint32_t s, Trap& t) {
  if (t.next == t.ops.size()) {  // all issued: wait for the last to complete
    ++stats_->issue.trap_wait_cycles;
    return Stall::Scoreboard;
  }
  const TrapEntry& e = t.ops[t.next];
  const func::DInstr& d = e.d;
  if (e.op.row != TrapOp::kNoRow) {
    if (slots_[s].inflight > t.inflight) return Stall::Scoreboard;  // the warp's own instructions drain first
  } else if (sb_.hazardOf(s, d.reads.data(), d.nreads, d.writes.data(), d.nwrites)) {
    return Stall::Scoreboard;
  }
  if (!opc_->canAllocate(UnitType::LDST)) return Stall::CollectorFull;
  return Stall::None;
}

void Sm::issueTrap(uint32_t s, uint64_t now) {
  WarpSlot& ws = slots_[s];
  Trap& t = *ws.trap;
  const TrapEntry& e = t.ops[t.next++];
  ++t.inflight;
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

void Sm::trapOpDone(const Inflight& f, uint64_t now) {
  WarpSlot& ws = slots_[f.slot];
  Trap& t = *ws.trap;
  --t.inflight;
  const TrapOp op = f.trap->op;
  TrapListener* l = t.listener;
  const bool last = t.inflight == 0 && t.next == t.ops.size();
  if (last) ws.trap.reset();  // before the listener: it may trap again
  if (l) {
    l->trapOpDone(f.slot, op, now);
    if (last) l->trapDone(f.slot, now);
  }
}

}  // namespace rfsim::sm
