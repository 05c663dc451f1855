#include "mech/cars/rename_ref.h"

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
  // CARS section IV-C: log2(2048 / #warps) bits per warp.
  p.free_bits = log2Exact(p.num_regs / p.num_warps);
  if (p.free_bits == 0) p.free_bits = 1;
  return p;
}

RenameRef::RenameRef(const RenameParams& p)
    : p_(p),
      idx_mask_((1u << p.idxBits()) - 1),
      free_mask_((1u << p.free_bits) - 1),
      state_(p.num_warps) {
  p_.check();
}

void RenameRef::reset() {
  for (auto& s : state_) s = WarpState{};
  pending_ = false;
}

void RenameRef::evaluate(const Inputs& in, Outputs& out) {
  const OpRequest& op = in.op;
  const uint32_t w = op.warp & (p_.num_warps - 1);
  const WarpState& cur = state_[w];
  const uint64_t depth = (cur.rsp - cur.rfp) & idx_mask_;
  WarpState nxt = cur;
  bool overflow = false, illegal = false;

  switch (op.op) {
    case Op::Launch:
      // The stack is contiguous with the base allotment (CARS section III-A).
      illegal = uint64_t{op.base} + op.frame + op.n > p_.num_regs || op.n > free_mask_;
      nxt.base = op.base & idx_mask_;
      nxt.rfp = nxt.rsp = (op.base + op.frame) & idx_mask_;
      nxt.free = op.n & free_mask_;
      break;
    case Op::Call:
      // The call pushes the caller's RFP and needs room for the callee's FRU.
      overflow = cur.free < uint64_t{op.n} + 1;
      nxt.rsp = nxt.rfp = (cur.rsp + 1) & idx_mask_;
      nxt.free = (cur.free - 1) & free_mask_;
      break;
    case Op::Ret:
      nxt.rsp = (cur.rfp - 1) & idx_mask_;
      nxt.rfp = op.saved_rfp & idx_mask_;
      nxt.free = (cur.free + static_cast<uint32_t>(depth) + 1) & free_mask_;
      break;
    case Op::Push:
      overflow = cur.free < op.n;
      nxt.rsp = (cur.rsp + op.n) & idx_mask_;
      nxt.free = (cur.free - op.n) & free_mask_;
      break;
    case Op::Pop:
      illegal = op.n > depth;
      nxt.rsp = (cur.rsp - op.n) & idx_mask_;
      nxt.free = (cur.free + op.n) & free_mask_;
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
  out.restore_idx = (cur.rfp - 1) & idx_mask_;
  pending_ = apply;
  pending_warp_ = w;
  pending_state_ = nxt;

  // CARS section III-A: Rx with 16 <= x < 16 + RSP - RFP is renamed to
  // RFP + (x - 16); every other register indexes Base + x.
  for (uint32_t i = 0; i < p_.read_ports; ++i) {
    const uint32_t rw = in.rd[i].warp & (p_.num_warps - 1);
    const uint32_t x = in.rd[i].reg & 0xff;
    const WarpState& s = state_[rw];
    const uint32_t off = (x - kCalleeSavedBase) & 0xff;
    const bool stacked = x >= kCalleeSavedBase && off < ((s.rsp - s.rfp) & idx_mask_);
    out.rd_stacked[i] = stacked;
    out.rd_idx[i] = (stacked ? s.rfp + off : s.base + x) & idx_mask_;
  }
  out.dbg = state_[in.dbg_warp & (p_.num_warps - 1)];
}

void RenameRef::tick() {
  if (pending_) state_[pending_warp_] = pending_state_;
  pending_ = false;
}

}  // namespace rfsim::cars
