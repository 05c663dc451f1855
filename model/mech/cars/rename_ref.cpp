#include "mech/cars/rename_ref.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/error.h"

namespace rfsim::cars {

const char* opName(Op op) {
  switch (op) {
    case Op::None: return "none";
    case Op::Launch: return "launch";
    case Op::Call: return "call";
    case Op::Ret: return "ret";
    case Op::Push: return "push";
    case Op::Pop: return "pop";
    case Op::Spill: return "spill";
    case Op::Fill: return "fill";
  }
  return "?";
}

namespace {
uint32_t log2Exact(uint32_t x) {
  uint32_t b = 0;
  while ((1u << b) < x) ++b;
  return b;
}
bool isPow2(uint32_t x) { return x && !(x & (x - 1)); }
}  // namespace

uint32_t RenameParams::warpBits() const { return log2Exact(num_warps); }
uint32_t RenameParams::idxBits() const { return log2Exact(num_regs); }

void RenameParams::check() const {
  if (!isPow2(num_warps) || num_warps < 2)
    throw Error(fmt::format("CARS rename unit: {} warps is not a power of two >= 2", num_warps));
  if (!isPow2(num_regs) || num_regs < num_warps)
    throw Error(fmt::format("CARS rename unit: {} registers is not a power of two >= the warp count", num_regs));
  if (read_ports < 1 || read_ports > kMaxReadPorts)
    throw Error(fmt::format("CARS rename unit: {} rename ports outside [1, {}]", read_ports, kMaxReadPorts));
  if (free_bits < 1 || free_bits > idxBits())
    throw Error(fmt::format("CARS rename unit: free counter of {} bits outside [1, {}]", free_bits, idxBits()));
}

RenameParams RenameParams::forSm(uint32_t warps, uint32_t regs, uint32_t read_ports) {
  RenameParams p;
  p.num_warps = 1u << log2Exact(warps < 2 ? 2 : warps);
  p.num_regs = 1u << log2Exact(regs);
  p.read_ports = read_ports;
  // As wide as the register file (FreeW in rtl/cars_rename.sv): a warp's
  // stack is limited by its allotment, not by its counter.
  p.free_bits = log2Exact(p.num_regs);
  return p;
}

RenameRef::RenameRef(const RenameParams& p)
    : p_(p),
      idx_mask_((1u << p.idxBits()) - 1),
      free_mask_((1u << p.free_bits) - 1),
      state_(p.num_warps),
      stack_(p.num_warps, 0) {
  p_.check();
}

void RenameRef::reset() {
  for (auto& s : state_) s = WarpState{};
  std::fill(stack_.begin(), stack_.end(), 0u);
  frame_ = 0;
  pending_ = false;
}

void RenameRef::evaluate(const Inputs& in, Outputs& out) {
  const OpRequest& op = in.op;
  const uint32_t w = op.warp & (p_.num_warps - 1);
  const WarpState& cur = state_[w];
  // The warp's circular stack [lo, lo + K) (CARS section IV-A, Fig. 6).
  const uint64_t k = stack_[w];
  const uint64_t lo = uint64_t{cur.base} + frame_;
  const auto up = [&](uint64_t x, uint64_t n) { return x + n >= lo + k ? x + n - k : x + n; };
  const auto down = [&](uint64_t x, uint64_t n) { return x >= lo + n ? x - n : x + k - n; };
  const uint64_t depth = cur.rsp >= cur.rfp ? cur.rsp - cur.rfp : cur.rsp + k - cur.rfp;
  WarpState nxt = cur;
  bool overflow = false, illegal = false;

  switch (op.op) {
    case Op::Launch:
      // The stack follows the base allotment (CARS section III-A).
      illegal = uint64_t{op.base} + op.frame + op.n > p_.num_regs || op.n > free_mask_;
      nxt.base = op.base & idx_mask_;
      nxt.rfp = nxt.rsp = (op.base + op.frame) & idx_mask_;
      nxt.free = op.n & free_mask_;
      break;
    case Op::Call:
      // The call pushes the caller's RFP and needs room for the callee's FRU.
      overflow = cur.free < uint64_t{op.n} + 1;
      nxt.rsp = nxt.rfp = static_cast<uint32_t>(up(cur.rsp, 1)) & idx_mask_;
      nxt.free = (cur.free - 1) & free_mask_;
      break;
    case Op::Ret:
      nxt.rsp = static_cast<uint32_t>(down(cur.rfp, 1)) & idx_mask_;
      nxt.rfp = op.saved_rfp & idx_mask_;
      nxt.free = (cur.free + static_cast<uint32_t>(depth) + 1) & free_mask_;
      break;
    case Op::Push:
      // A frame of K registers would read as empty (depth modulo K).
      overflow = cur.free < op.n || depth + op.n >= k;
      nxt.rsp = static_cast<uint32_t>(up(cur.rsp, op.n)) & idx_mask_;
      nxt.free = (cur.free - op.n) & free_mask_;
      break;
    case Op::Pop:
      illegal = op.n > depth;
      nxt.rsp = static_cast<uint32_t>(down(cur.rsp, op.n)) & idx_mask_;
      nxt.free = (cur.free + op.n) & free_mask_;
      break;
    case Op::Spill:
      illegal = uint64_t{cur.free} + op.n > k;
      nxt.free = (cur.free + op.n) & free_mask_;
      break;
    case Op::Fill:
      overflow = cur.free < op.n;
      nxt.free = (cur.free - op.n) & free_mask_;
      break;
    case Op::None:
      break;
  }

  const bool apply = op.valid && op.op != Op::None && !overflow && !illegal;
  out.ack = apply;
  out.overflow = op.valid && overflow;
  out.illegal = op.valid && illegal;
  out.save_valid = apply && op.op == Op::Call;
  out.save_idx = cur.rsp;
  out.save_data = cur.rfp;
  out.restore_idx = static_cast<uint32_t>(down(cur.rfp, 1)) & idx_mask_;
  pending_ = apply;
  pending_warp_ = w;
  pending_state_ = nxt;
  pending_launch_ = apply && op.op == Op::Launch;
  pending_stack_ = op.n & free_mask_;
  pending_frame_ = op.frame & idx_mask_;

  for (uint32_t i = 0; i < p_.read_ports; ++i) rename(in, out, i);
  out.dbg = state_[in.dbg_warp & (p_.num_warps - 1)];
}

void RenameRef::evaluateRename(const Inputs& in, Outputs& out, uint32_t port) {
  if (in.op.valid || port >= p_.read_ports) {
    evaluate(in, out);
    return;
  }
  pending_ = false;  // no operation: nothing for the edge to apply
  rename(in, out, port);
  out.dbg = state_[in.dbg_warp & (p_.num_warps - 1)];
}

// CARS section III-A: Rx with 16 <= x < 16 + depth is renamed to
// RFP + (x - 16), wrapped into the warp's stack; every other register
// indexes Base + x.
void RenameRef::rename(const Inputs& in, Outputs& out, uint32_t i) const {
  const uint32_t rw = in.rd[i].warp & (p_.num_warps - 1);
  const uint32_t x = in.rd[i].reg & 0xff;
  const WarpState& s = state_[rw];
  const uint64_t sk = stack_[rw];
  const uint64_t end = uint64_t{s.base} + frame_ + sk;
  const uint64_t d = s.rsp >= s.rfp ? s.rsp - s.rfp : s.rsp + sk - s.rfp;
  const uint32_t off = (x - kCalleeSavedBase) & 0xff;
  const bool stacked = x >= kCalleeSavedBase && off < d;
  const uint64_t t = uint64_t{s.rfp} + off;
  out.rd_stacked[i] = stacked;
  out.rd_idx[i] = static_cast<uint32_t>(stacked ? (t >= end ? t - sk : t) : s.base + x) & idx_mask_;
}

void RenameRef::tick() {
  if (pending_) {
    state_[pending_warp_] = pending_state_;
    if (pending_launch_) {
      stack_[pending_warp_] = pending_stack_;
      frame_ = pending_frame_;
    }
  }
  pending_ = false;
}

}  // namespace rfsim::cars
