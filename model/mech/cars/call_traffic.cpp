#include "mech/cars/call_traffic.h"

#include <fmt/format.h>

#include "common/error.h"

namespace rfsim::cars {

CallTraffic::CallTraffic(const RenameParams& unit, const TrafficParams& t, const std::string& source)
    : unit_(unit), t_(t), warps_(t.warps), rf_(unit.num_regs, 0), rng_(t.seed) {
  const uint64_t per_warp = uint64_t{t.kernel_regs} + t.stack_regs;
  if (t.warps < 1 || t.warps > unit.num_warps)
    throw Error(fmt::format("{}: {} warps, but the rename unit holds {}", source, t.warps, unit.num_warps));
  if (per_warp * t.warps > unit.num_regs)
    throw Error(fmt::format("{}: demo.kernel_regs + demo.stack_regs = {} registers per warp x {} warps "
                            "exceeds the register file's {} warp-registers",
                            source, per_warp, t.warps, unit.num_regs));
  if (t.stack_regs >= (1u << unit.free_bits))
    throw Error(fmt::format("{}: demo.stack_regs = {} does not fit the {}-bit free-register counter "
                            "(at most {}; CARS section IV-C sizes it log2(registers / warps))",
                            source, t.stack_regs, unit.free_bits, (1u << unit.free_bits) - 1));
  if (t.kernel_regs <= kCalleeSavedBase)
    throw Error(fmt::format("{}: demo.kernel_regs = {} must exceed R{}, the first callee-saved register",
                            source, t.kernel_regs, kCalleeSavedBase));
  if (t.max_fru > 255 - kCalleeSavedBase)
    throw Error(fmt::format("{}: demo.max_fru = {} exceeds the {} callee-saved registers an 8-bit field reaches",
                            source, t.max_fru, 255 - kCalleeSavedBase));
}

uint32_t CallTraffic::uniform(uint32_t lo, uint32_t hi) {
  return std::uniform_int_distribution<uint32_t>(lo, hi)(rng_);
}

bool CallTraffic::chance(double p) { return std::uniform_real_distribution<double>(0.0, 1.0)(rng_) < p; }

uint32_t CallTraffic::freeRegs(const Warp& s) const { return t_.stack_regs - (s.rsp - s.stack_start); }

OpRequest CallTraffic::pickOp(uint32_t w) {
  Warp& s = warps_[w];
  OpRequest op;
  op.valid = true;
  op.warp = w;
  const uint32_t stride = t_.kernel_regs + t_.stack_regs;
  if (!s.launched || (s.frames.empty() && chance(t_.relaunch_rate))) {
    op.op = Op::Launch;
    op.base = w * stride;
    op.frame = t_.kernel_regs;
    op.n = t_.stack_regs;
    return op;
  }
  if (t_.illegal_rate > 0 && chance(t_.illegal_rate)) {
    // Pop more than the frame holds: the unit must refuse it.
    op.op = Op::Pop;
    op.n = (s.rsp - s.rfp) + uniform(1, 3);
    return op;
  }
  Frame* f = s.frames.empty() ? nullptr : &s.frames.back();
  if (!f && t_.max_depth == 0) {
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
    if (choice == kCall && s.frames.size() < t_.max_depth) break;
    if (choice == kPush && f && f->pushed < f->fru) break;
    if (choice == kPop && f && f->pushed > 0) break;
    if (choice == kRet && f) break;
  }
  switch (choice) {
    case kCall:
      op.op = Op::Call;
      op.n = uniform(0, t_.max_fru);
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
      op.saved_rfp = rf_[f->save_slot];
      break;
  }
  return op;
}

uint32_t CallTraffic::pickReg(const Warp& s) {
  // Mostly around the renamed window [R16, R16 + RSP - RFP) and its edges.
  if (chance(0.6)) return kCalleeSavedBase - 1 + uniform(0, (s.rsp - s.rfp) + 2);
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
    const uint32_t idx = (stacked ? s.rfp + (x - kCalleeSavedBase) : s.base + x) & mask;
    if (out.rd_stacked[i] != stacked || out.rd_idx[i] != idx)
      fail(fmt::format("warp {} R{} renamed to {}{}, expected {}{}", in.rd[i].warp, x, out.rd_idx[i],
                       out.rd_stacked[i] ? " (stack)" : "", idx, stacked ? " (stack)" : ""));
  }
  // RFP and RSP are log2(R)-bit registers (CARS section IV-C): a stack that
  // ends at the last register leaves RSP one past it, which reads as 0.
  // Depths are differences modulo R, and the free counter stops any write
  // at a wrapped RSP, so the wrap is harmless; compare modulo R.
  const Warp& d = warps_[in.dbg_warp];
  if (d.launched && (out.dbg.base != d.base || out.dbg.rfp != (d.rfp & mask) || out.dbg.rsp != (d.rsp & mask) ||
                     out.dbg.free != freeRegs(d)))
    fail(fmt::format("warp {} state Base/RFP/RSP/free = {}/{}/{}/{}, expected {}/{}/{}/{}", in.dbg_warp,
                     out.dbg.base, out.dbg.rfp, out.dbg.rsp, out.dbg.free, d.base, d.rfp, d.rsp, freeRegs(d)));

  ++cycle_;
  if (!in.op.valid) return;
  Warp& s = warps_[in.op.warp];
  const OpRequest& op = in.op;

  // What the unit must decide, from the shadow alone.
  bool overflow = false, illegal = false;
  switch (op.op) {
    case Op::Call: overflow = freeRegs(s) < op.n + 1; break;
    case Op::Push: overflow = freeRegs(s) < op.n; break;
    case Op::Pop: illegal = op.n > s.rsp - s.rfp; break;
    default: break;
  }
  if (out.overflow != overflow || out.illegal != illegal || out.ack != (!overflow && !illegal))
    fail(fmt::format("{} on warp {} (n={}): ack/overflow/illegal = {}/{}/{}, expected {}/{}/{}", opName(op.op),
                     op.warp, op.n, out.ack, out.overflow, out.illegal, !overflow && !illegal, overflow, illegal));
  if (!out.ack) return;

  switch (op.op) {
    case Op::Launch:
      s.launched = true;
      s.base = op.base;
      s.stack_start = s.rfp = s.rsp = op.base + op.frame;
      s.frames.clear();
      break;
    case Op::Call:
      // The call saves the caller's RFP on the stack (CARS section III-A).
      if (!out.save_valid || out.save_idx != s.rsp || out.save_data != s.rfp)
        fail(fmt::format("call on warp {} saved RFP {} at {}, expected {} at {}", op.warp, out.save_data,
                         out.save_idx, s.rfp, s.rsp));
      rf_[out.save_idx] = out.save_data;
      s.frames.push_back(Frame{op.n, 0, s.rsp});
      s.rsp += 1;
      s.rfp = s.rsp;
      break;
    case Op::Push:
      s.rsp += op.n;
      s.frames.back().pushed += op.n;
      break;
    case Op::Pop:
      s.rsp -= op.n;
      s.frames.back().pushed -= op.n;
      break;
    case Op::Ret:
      if (out.restore_idx != s.frames.back().save_slot)
        fail(fmt::format("return on warp {} reads the caller RFP from {}, expected {}", op.warp,
                         out.restore_idx, s.frames.back().save_slot));
      s.rsp = s.rfp - 1;
      s.rfp = op.saved_rfp;
      s.frames.pop_back();
      break;
    case Op::None: break;
  }
}

}  // namespace rfsim::cars
