// Barriers (bar/barrier.sync, bar.arrive, bar.red) and the warp-wide
// exchanges (shfl.sync, vote.sync).
#include <fmt/format.h>

#include "common/error.h"
#include "func/executor.h"

namespace rfsim::func {

// A warp arrives as a whole (hardware counts barrier arrivals per warp, 32
// threads each). Without a thread count the barrier completes when every warp
// of the block that has not exited has arrived.
bool BlockExecutor::execBar(Warp& w, const DInstr& d, uint32_t act) {
  ++block_events_;  // an arrival: the livelock proof's block epoch
  SimtEntry& e = w.stack.back();
  e.pc += 1;
  if (!act) {
    if (e.pc == e.rpc) settle(w);
    return true;
  }
  const ptx::Instr& in = *d.in;
  const bool red = in.mods.red_popc || in.mods.boolop != ptx::BoolOp::None;
  const uint32_t first = static_cast<uint32_t>(__builtin_ctz(act));
  const uint64_t id = read(w, d.src[0], first);
  if (id >= bars_.size()) fail(w, d, first, fmt::format("barrier {} out of range (0..15)", id));
  Barrier& b = bars_[id];
  const bool has_count = red ? d.nsrc >= 3 : d.nsrc >= 2;
  if (has_count) {
    const uint64_t count = read(w, d.src[1], first);
    if (count == 0 || count % 32 || count > 1024)
      fail(w, d, first, fmt::format("barrier thread count {} is not a positive multiple of 32 up to 1024", count));
    if (b.expected_threads && b.expected_threads != count)
      fail(w, d, first, fmt::format("barrier {} used with thread counts {} and {}", id, b.expected_threads, count));
    b.expected_threads = static_cast<uint32_t>(count);
  }
  ++b.arrived_warps;
  b.arrived_threads += 32;
  bars_busy_ |= 1u << id;
  if (red) {
    const DOperand& p = d.src[d.nsrc - 1];
    for (uint32_t m = act; m; m &= m - 1) {
      const bool v = read(w, p, static_cast<uint32_t>(__builtin_ctz(m))) & 1;
      b.popc += v;
      b.all = b.all && v;
      b.any = b.any || v;
    }
  }
  if (e.pc == e.rpc) settle(w);
  if (!in.mods.arrive) {
    w.bar_id = static_cast<uint32_t>(id);
    w.bar_instr = &d;
    w.bar_lanes = act;
    w.state = WarpState::Blocked;
    b.waiting.push_back(w.id);
  }
  checkBarriers();
  return w.state == WarpState::Ready;
}

void BlockExecutor::releaseBarrier(uint32_t id) {
  Barrier& b = bars_[id];
  ++block_events_;
  for (uint32_t wi : b.waiting) {
    Warp& w = warps_[wi];
    w.state = WarpState::Ready;
    const ptx::Instr& in = *w.bar_instr->in;
    const DOperand& dst = w.bar_instr->dst[0];
    if (dst.kind == DKind::Reg && (in.mods.red_popc || in.mods.boolop != ptx::BoolOp::None)) {
      uint64_t v = b.popc;
      if (!in.mods.red_popc) v = in.mods.boolop == ptx::BoolOp::And ? b.all : b.any;
      // The destination belongs to the frame that executed the barrier,
      // which is still the top frame: bar is not a call.
      for (uint32_t m = w.bar_lanes; m; m &= m - 1) write(w, dst, static_cast<uint32_t>(__builtin_ctz(m)), v);
    }
  }
  b.reset();
  bars_busy_ &= ~(1u << id);
}

void BlockExecutor::checkBarriers() {
  if (!bars_busy_) return;
  uint32_t live = 0;
  for (uint32_t i = 0; i < nwarps_; ++i) live += warps_[i].state != WarpState::Done;
  for (uint32_t busy = bars_busy_; busy; busy &= busy - 1) {
    const auto id = static_cast<uint32_t>(__builtin_ctz(busy));
    const Barrier& b = bars_[id];
    const bool done = b.expected_threads ? b.arrived_threads >= b.expected_threads : b.arrived_warps >= live;
    if (done) releaseBarrier(id);
  }
}

// PTX ISA 9.7.9.6 (shfl.sync): lane j's value, clamped to the segment given
// by c; p tells whether j was inside it.
void BlockExecutor::execShfl(Warp& w, const DInstr& d, uint32_t act) {
  std::array<uint64_t, 32> a;
  for (uint32_t l = 0; l < 32; ++l) a[l] = read(w, d.src[0], l);
  const ptx::ShflMode mode = d.in->mods.shfl;
  const bool pred_out = d.ndst > 1 && d.dst[1].kind == DKind::Reg;
  for (uint32_t m = act; m; m &= m - 1) {
    const int32_t lane = __builtin_ctz(m);
    const int32_t bval = static_cast<int32_t>(read(w, d.src[1], lane) & 31);
    const uint64_t c = read(w, d.src[2], lane);
    const int32_t cval = static_cast<int32_t>(c & 31);
    const int32_t seg = static_cast<int32_t>((c >> 8) & 31);
    const int32_t max_lane = (lane & seg) | (cval & ~seg);
    const int32_t min_lane = lane & seg;
    int32_t j = lane;
    bool pval = false;
    switch (mode) {
      case ptx::ShflMode::Up: j = lane - bval; pval = j >= max_lane; break;
      case ptx::ShflMode::Down: j = lane + bval; pval = j <= max_lane; break;
      case ptx::ShflMode::Bfly: j = lane ^ bval; pval = j <= max_lane; break;
      case ptx::ShflMode::Idx: j = min_lane | (bval & ~seg); pval = j <= max_lane; break;
      case ptx::ShflMode::None: break;
    }
    if (!pval || j < 0 || j > 31) j = lane;
    if (d.dst[0].kind == DKind::Reg) write(w, d.dst[0], static_cast<uint32_t>(lane), a[static_cast<uint32_t>(j)]);
    if (pred_out) write(w, d.dst[1], static_cast<uint32_t>(lane), pval ? 1 : 0);
  }
}

void BlockExecutor::execVote(Warp& w, const DInstr& d, uint32_t act) {
  uint32_t ballot = 0;
  for (uint32_t m = act; m; m &= m - 1) {
    const uint32_t l = static_cast<uint32_t>(__builtin_ctz(m));
    if (read(w, d.src[0], l) & 1) ballot |= 1u << l;
  }
  uint64_t v = 0;
  switch (d.in->mods.vote) {
    case ptx::VoteMode::All: v = ballot == act; break;
    case ptx::VoteMode::Any: v = ballot != 0; break;
    case ptx::VoteMode::Uni: v = ballot == 0 || ballot == act; break;
    case ptx::VoteMode::Ballot: v = ballot; break;
    case ptx::VoteMode::None: break;
  }
  for (uint32_t m = act; m; m &= m - 1) write(w, d.dst[0], static_cast<uint32_t>(__builtin_ctz(m)), v);
}

}  // namespace rfsim::func
