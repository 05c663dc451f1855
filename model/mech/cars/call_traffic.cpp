#include "mech/cars/call_traffic.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/error.h"

namespace rfsim::cars {

CallTraffic::CallTraffic(const RenameParams& unit, const TrafficParams& t, const std::string& source)
    : unit_(unit), t_(t), warps_(t.warps), rf_(unit.num_regs, 0), rng_(t.seed) {
  const uint64_t per_warp = uint64_t{t.kernel_regs} + t.stack_regs;
  if (t.warps < 1 || t.warps > unit.num_warps)
    throw Error(fmt::format("{}: {} warps, but the rename unit holds {}", source, t.warps, unit.num_warps));
  if (per_warp * t.warps > unit.num_regs)
    throw Error(fmt::format("{}: mechanisms.cars.demo: kernel_regs + stack_regs = {} registers per warp x {} warps "
                            "exceeds the register file's {} warp-registers",
                            source, per_warp, t.warps, unit.num_regs));
  if (t.stack_regs >= (1u << unit.free_bits))
    throw Error(fmt::format("{}: mechanisms.cars.demo.stack_regs = {} does not fit the {}-bit free-register counter "
                            "(at most {}; CARS section IV-C sizes it log2(registers / warps))",
                            source, t.stack_regs, unit.free_bits, (1u << unit.free_bits) - 1));
  if (t.kernel_regs <= kCalleeSavedBase)
    throw Error(fmt::format("{}: mechanisms.cars.demo.kernel_regs = {} must exceed R{}, the first callee-saved register",
                            source, t.kernel_regs, kCalleeSavedBase));
  if (t.max_fru > 255 - kCalleeSavedBase)
    throw Error(fmt::format("{}: mechanisms.cars.demo.max_fru = {} exceeds the {} callee-saved registers an 8-bit field reaches",
                            source, t.max_fru, 255 - kCalleeSavedBase));
}

uint32_t CallTraffic::uniform(uint32_t lo, uint32_t hi) {
  return std::uniform_int_distribution<uint32_t>(lo, hi)(rng_);
}

bool CallTraffic::chance(double p) { return std::uniform_real_distribution<double>(0.0, 1.0)(rng_) < p; }

uint32_t CallTraffic::freeRegs(const Warp& s) const { return s.k - static_cast<uint32_t>(s.rsp - s.bottom); }

uint64_t CallTraffic::oldestEnd(const Warp& s) const {
  for (const Frame& f : s.frames)
    if (f.start > s.bottom) return f.start;
  return s.rsp;
}

OpRequest CallTraffic::pickOp(uint32_t w) {
  Warp& s = warps_[w];
  OpRequest op;
  op.valid = true;
  op.warp = w;
  const uint32_t stride = t_.kernel_regs + t_.stack_regs;
  const bool idle = s.frames.empty() && s.fill == 0 && s.retry_call < 0;
  if (!s.launched || (idle && chance(t_.relaunch_rate))) {
    op.op = Op::Launch;
    op.base = w * stride;
    op.frame = t_.kernel_regs;
    op.n = t_.stack_regs;
    return op;
  }
  // The traps' operations come first (CARS section IV-A): a frame the warp
  // returned into is filled back; a refused call spills the oldest frame
  // and is tried again once it fits.
  if (s.fill) {
    op.op = Op::Fill;
    op.n = static_cast<uint32_t>(s.fill);
    return op;
  }
  if (s.retry_call >= 0) {
    if (freeRegs(s) < static_cast<uint32_t>(s.retry_call) + 1) {
      op.op = Op::Spill;
      op.n = static_cast<uint32_t>(oldestEnd(s) - s.bottom);
    } else {
      op.op = Op::Call;
      op.n = static_cast<uint32_t>(s.retry_call);
    }
    return op;
  }
  if (t_.illegal_rate > 0 && chance(t_.illegal_rate)) {
    if (chance(0.5)) {
      // Pop more than the frame holds: the unit must refuse it.
      op.op = Op::Pop;
      op.n = static_cast<uint32_t>(s.rsp - s.rfp) + uniform(1, 3);
    } else {
      // Spill more than the stack holds.
      op.op = Op::Spill;
      op.n = s.k - freeRegs(s) + uniform(1, 3);
    }
    return op;
  }
  Frame* f = s.frames.empty() ? nullptr : &s.frames.back();
  if (!f && (t_.max_depth == 0 || s.k == 0)) {
    op.valid = false;  // nothing legal to do at kernel level without calls
    return op;
  }
  // Choose among the operations legal here; calls get deeper only so far.
  enum { kCall, kPush, kPop, kRet } choice;
  for (;;) {
    const uint32_t r = uniform(0, 99);
    if (r < 30) choice = kCall;
    else if (r < 55) choice = kPush;
    else if (r < 80) choice = kPop;
    else choice = kRet;
    if (choice == kCall && s.frames.size() < t_.max_depth && s.k > 0) break;
    if (choice == kPush && f && f->pushed < f->fru) break;
    if (choice == kPop && f && f->pushed > 0) break;
    if (choice == kRet && f) break;
  }
  switch (choice) {
    case kCall:
      // A frame and its saved RFP fit the stack: FRU <= K - 1.
      op.op = Op::Call;
      op.n = uniform(0, std::min(t_.max_fru, s.k - 1));
      break;
    case kPush:
      op.op = Op::Push;
      op.n = uniform(1, f->fru - f->pushed);
      break;
    case kPop:
      op.op = Op::Pop;
      op.n = uniform(1, f->pushed);
      break;
    case kRet:
      op.op = Op::Ret;
      op.saved_rfp = rf_[row(s, f->start)];
      break;
  }
  return op;
}

uint32_t CallTraffic::pickReg(const Warp& s) {
  // Mostly around the renamed window [R16, R16 + RSP - RFP) and its edges.
  if (chance(0.6)) return kCalleeSavedBase - 1 + uniform(0, static_cast<uint32_t>(s.rsp - s.rfp) + 2);
  return uniform(0, 63);
}

void CallTraffic::next(Inputs& in) {
  in.op = OpRequest{};
  expect_illegal_ = false;
  if (chance(t_.op_rate)) {
    const uint32_t w = uniform(0, t_.warps - 1);
    in.op = pickOp(w);
    in.dbg_warp = w;
  } else {
    in.dbg_warp = dbg_next_;
    dbg_next_ = (dbg_next_ + 1) % t_.warps;
  }
  for (uint32_t i = 0; i < unit_.read_ports; ++i) {
    const uint32_t w = uniform(0, t_.warps - 1);
    in.rd[i] = ReadRequest{w, pickReg(warps_[w])};
  }
}

void CallTraffic::observe(const Inputs& in, const Outputs& out) {
  auto fail = [&](const std::string& what) {
    throw Error(fmt::format("CARS scoreboard at cycle {}: {}", cycle_, what));
  };
  const uint32_t mask = unit_.num_regs - 1;

  // Renames see the state before this cycle's operation.
  for (uint32_t i = 0; i < unit_.read_ports; ++i) {
    const Warp& s = warps_[in.rd[i].warp];
    if (!s.launched) continue;
    const uint32_t x = in.rd[i].reg;
    const bool stacked = x >= kCalleeSavedBase && x < kCalleeSavedBase + (s.rsp - s.rfp);
    const uint32_t idx = stacked ? row(s, s.rfp + (x - kCalleeSavedBase)) : (s.base + x) & mask;
    if (out.rd_stacked[i] != stacked || out.rd_idx[i] != idx)
      fail(fmt::format("warp {} R{} renamed to {}{}, expected {}{}", in.rd[i].warp, x, out.rd_idx[i],
                       out.rd_stacked[i] ? " (stack)" : "", idx, stacked ? " (stack)" : ""));
  }
  const Warp& d = warps_[in.dbg_warp];
  if (d.launched && (out.dbg.base != d.base || out.dbg.rfp != row(d, d.rfp) || out.dbg.rsp != row(d, d.rsp) ||
                     out.dbg.free != freeRegs(d)))
    fail(fmt::format("warp {} state Base/RFP/RSP/free = {}/{}/{}/{}, expected {}/{}/{}/{}", in.dbg_warp,
                     out.dbg.base, out.dbg.rfp, out.dbg.rsp, out.dbg.free, d.base, row(d, d.rfp), row(d, d.rsp),
                     freeRegs(d)));

  ++cycle_;
  if (!in.op.valid) return;
  Warp& s = warps_[in.op.warp];
  const OpRequest& op = in.op;

  // What the unit must decide, from the shadow alone.
  bool overflow = false, illegal = false;
  const uint64_t depth = s.rsp - s.rfp;
  switch (op.op) {
    case Op::Call: overflow = freeRegs(s) < op.n + 1; break;
    case Op::Push: overflow = freeRegs(s) < op.n || depth + op.n >= s.k; break;
    case Op::Pop: illegal = op.n > depth; break;
    case Op::Spill: illegal = uint64_t{freeRegs(s)} + op.n > s.k; break;
    case Op::Fill: overflow = freeRegs(s) < op.n; break;
    default: break;
  }
  if (out.overflow != overflow || out.illegal != illegal || out.ack != (!overflow && !illegal))
    fail(fmt::format("{} on warp {} (n={}): ack/overflow/illegal = {}/{}/{}, expected {}/{}/{}", opName(op.op),
                     op.warp, op.n, out.ack, out.overflow, out.illegal, !overflow && !illegal, overflow, illegal));
  if (op.op == Op::Call && overflow) s.retry_call = op.n;  // the overflow trap starts
  if (!out.ack) return;

  switch (op.op) {
    case Op::Launch:
      s = Warp{};
      s.launched = true;
      s.base = op.base;
      s.lo = op.base + op.frame;
      s.k = op.n;
      break;
    case Op::Call:
      // The call saves the caller's RFP on the stack (CARS section III-A).
      if (!out.save_valid || out.save_idx != row(s, s.rsp) || out.save_data != row(s, s.rfp))
        fail(fmt::format("call on warp {} saved RFP {} at {}, expected {} at {}", op.warp, out.save_data,
                         out.save_idx, row(s, s.rfp), row(s, s.rsp)));
      rf_[out.save_idx] = out.save_data;
      s.frames.push_back(Frame{op.n, 0, s.rsp, s.rfp});
      s.rsp += 1;
      s.rfp = s.rsp;
      s.retry_call = -1;
      break;
    case Op::Push:
      s.rsp += op.n;
      s.frames.back().pushed += op.n;
      break;
    case Op::Pop:
      s.rsp -= op.n;
      s.frames.back().pushed -= op.n;
      break;
    case Op::Ret: {
      const Frame f = s.frames.back();
      if (out.restore_idx != row(s, f.start))
        fail(fmt::format("return on warp {} reads the caller RFP from {}, expected {}", op.warp, out.restore_idx,
                         row(s, f.start)));
      if (op.saved_rfp != row(s, f.caller_rfp))
        fail(fmt::format("return on warp {}: the register file gave RFP {}, the caller's is {}", op.warp,
                         op.saved_rfp, row(s, f.caller_rfp)));
      s.rsp = f.start;
      s.rfp = f.caller_rfp;
      s.frames.pop_back();
      // Back in a frame the overflow trap spilled: it is filled first.
      const uint64_t caller_start = s.frames.empty() ? 0 : s.frames.back().start;
      if (s.bottom > caller_start) s.fill = s.bottom - caller_start;
      break;
    }
    case Op::Spill:
      if (s.spilled.size() < s.bottom + op.n) s.spilled.resize(s.bottom + op.n);
      for (uint64_t p = s.bottom; p < s.bottom + op.n; ++p) s.spilled[p] = rf_[row(s, p)];
      s.bottom += op.n;
      ++spills_;
      break;
    case Op::Fill:
      s.bottom -= op.n;
      for (uint64_t p = s.bottom; p < s.bottom + op.n; ++p) rf_[row(s, p)] = s.spilled[p];
      s.fill = 0;
      ++fills_;
      break;
    case Op::None: break;
  }
}

}  // namespace rfsim::cars
