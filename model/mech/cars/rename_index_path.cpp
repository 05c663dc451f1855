#include "mech/cars/rename_index_path.h"

#include <fmt/format.h>

#include "common/error.h"
#include "mech/cars/cars_config.h"
#include "mech/cars/rename_demo.h"
#include "mech/cars/rename_lockstep.h"
#include "mech/cars/rename_ref.h"

namespace rfsim::cars {

IndexPathStats::IndexPathStats(stats::Group* parent)
    : Group(parent, "rename_index_path", "the CARS rename unit in the SM's register-index translation path"),
      ADD_STAT(cycles, stats::unit::Cycle, "SM cycles the rename unit was clocked"),
      ADD_STAT(evaluations, stats::unit::Count, "evaluations of the unit (each compared in lockstep with --rtl)"),
      ADD_STAT(renames, stats::unit::Count, "register-file accesses renamed (operand reads and write-backs)"),
      ADD_STAT(launch_ops, stats::unit::Count, "Launch operations applied (one per warp)"),
      ADD_STAT(launch_wait, stats::unit::Cycle, "cycles Launch operations waited for the operation port"),
      ADD_STAT(max_renames, stats::unit::Count, "most renames in one cycle"),
      ADD_STAT(port_overflow_cycles, stats::unit::Cycle,
               "cycles with more renames than rename ports (the hardware would need more ports)"),
      ADD_STAT(call_ops, stats::unit::Count, "Call operations applied (RFP saved, RFP <- RSP)"),
      ADD_STAT(ret_ops, stats::unit::Count, "Ret operations applied at frame release (RSP <- RFP, RFP restored)"),
      ADD_STAT(push_ops, stats::unit::Count, "Push operations applied"),
      ADD_STAT(pop_ops, stats::unit::Count, "Pop operations applied"),
      ADD_STAT(spill_ops, stats::unit::Count, "Spill operations of the overflow trap applied"),
      ADD_STAT(fill_ops, stats::unit::Count, "Fill operations of the overflow trap applied"),
      ADD_STAT(granted, stats::unit::Count,
               "stalled warps given register space when a warp exited or was switched out"),
      ADD_STAT(switched_out, stats::unit::Count,
               "warps switched out at a barrier for a stalled warp of their block (CARS IV-B2)"),
      ADD_STAT(restored, stats::unit::Count, "switched-out warps given register space again") {}

RenameIndexPath::RenameIndexPath(std::unique_ptr<RenameUnit> unit, RegionAllocator* inner, stats::Group* stats_parent)
    : unit_(std::move(unit)),
      inner_(inner ? inner : &base_alloc_),
      p_(unit_->params()),
      stats_(stats_parent),
      pending_(p_.num_warps, false),
      shadow_(p_.num_warps),
      shadow_rows_(p_.num_warps) {
  for (uint32_t w = 0; w < p_.num_warps; ++w) syncRows(w);
}

void RenameIndexPath::syncRows(uint32_t warp) {
  const Shadow& s = shadow_[warp];
  const uint32_t mask = p_.num_regs - 1;
  shadow_rows_[warp] = ShadowRows{s.base & mask, s.row(s.rfp) & mask, s.row(s.rsp) & mask};
}

std::unique_ptr<RenameUnit> RenameIndexPath::unitFor(const config::GpuConfig& cfg) {
  const RenameParams p = paramsFor(cfg);
  if (carsConfig(cfg).rtl) return std::make_unique<RenameLockstep>(p);
  return std::make_unique<RenameRef>(p);
}

void RenameIndexPath::fail(const std::string& what) const {
  throw Error(fmt::format("rename unit in the index path, SM cycle {}: {}", now_, what));
}

void RenameIndexPath::evaluate() {
  unit_->evaluate(in_, out_);
  ++stats_.evaluations;
  evaluated_ = true;
}

// (Both inline: translate() runs them on every rename.)
// CARS III-A: Rx with 16 <= x < 16 + RSP - RFP is RFP + (x - 16); every
// other register is Base + x.
inline RenameIndexPath::Expected RenameIndexPath::expected(uint32_t warp, uint32_t reg) const {
  const Shadow& s = shadow_[warp];
  const bool stacked = reg >= kCalleeSavedBase && reg - kCalleeSavedBase < s.rsp - s.rfp;
  return {stacked ? s.row(s.rfp + (reg - kCalleeSavedBase)) : (s.base + reg) & (p_.num_regs - 1), stacked};
}

// The unit's pointers have the row index's width: an empty stack (K = 0)
// of the file's last warp starts at row num_regs, which they hold as 0.
inline bool RenameIndexPath::debugDiffers(uint32_t warp) const {
  const ShadowRows& sr = shadow_rows_[warp];
  return in_.dbg_warp == warp && (out_.dbg.base != sr.base || out_.dbg.rfp != sr.rfp || out_.dbg.rsp != sr.rsp ||
                                  out_.dbg.free != shadow_[warp].free);
}

uint32_t RenameIndexPath::translate(uint32_t warp, uint32_t reg) {
  if (warp >= p_.num_warps || pending_[warp]) failRename(warp, reg, 0);
  // The ports of one cycle fill in order; when all are taken the next
  // rename starts over at port 0 (counted: the hardware needs more ports).
  if (ports_used_ == p_.read_ports) ports_used_ = 0;
  const uint32_t port = ports_used_++;
  in_.rd[port] = ReadRequest{warp, reg};
  if (!op_.valid) in_.dbg_warp = warp;
  // Only this port's request changed since the cycle's last evaluation.
  unit_->evaluateRename(in_, out_, port);
  ++stats_.evaluations;
  evaluated_ = true;
  ++stats_.renames;
  ++cycle_renames_;
  const uint32_t idx = out_.rd_idx[port];
  // The warp's state in the unit agrees with the rule's, and so does the row.
  const Expected e = expected(warp, reg);
  if (debugDiffers(warp) || idx != e.row || out_.rd_stacked[port] != e.stacked) failRename(warp, reg, port);
  return idx;
}

// What translate() found wrong, in words (kept out of the rename path).
void RenameIndexPath::failRename(uint32_t warp, uint32_t reg, uint32_t port) const {
  if (warp >= p_.num_warps) fail(fmt::format("warp slot {} beyond the unit's {} warps", warp, p_.num_warps));
  if (pending_[warp]) fail(fmt::format("warp {} reads R{} before its Launch operation took effect", warp, reg));
  const uint32_t idx = out_.rd_idx[port];
  const Shadow& s = shadow_[warp];
  const uint32_t mask = p_.num_regs - 1;
  const Expected e = expected(warp, reg);
  if (debugDiffers(warp))
    fail(fmt::format("warp {}: the unit holds Base {} RFP {} RSP {} free {}; the rule gives {} {} {} {}", warp,
                     out_.dbg.base, out_.dbg.rfp, out_.dbg.rsp, out_.dbg.free, s.base & mask, s.row(s.rfp) & mask,
                     s.row(s.rsp) & mask, s.free));
  fail(fmt::format("warp {} R{} renamed to row {}{}; the rule gives row {}{} (Base {}, RFP {}, RSP {})", warp, reg,
                   idx, out_.rd_stacked[port] ? " (stacked)" : "", e.row, e.stacked ? " (stacked)" : "", s.base,
                   s.row(s.rfp), s.row(s.rsp)));
}

void RenameIndexPath::requestOp(Op op, uint32_t warp, uint32_t n) {
  if (op_.valid)
    fail(fmt::format("a second operation ({} of warp {}) in one cycle; the port takes one", opName(op), warp));
  if (warp >= p_.num_warps || pending_[warp])
    fail(fmt::format("{} of warp {}, which has no register space", opName(op), warp));
  op_ = OpRequest{};
  op_.valid = true;
  op_.op = op;
  op_.warp = warp;
  op_.n = n;
}

void RenameIndexPath::queueTrapOp(Op op, uint32_t warp, uint32_t n) {
  if (op != Op::Spill && op != Op::Fill) fail(fmt::format("{} is not a trap's operation", opName(op)));
  if (warp >= p_.num_warps || pending_[warp])
    fail(fmt::format("{} of warp {}, which has no register space", opName(op), warp));
  trap_ops_.push_back(TrapOpReq{op, warp, n});
}

bool RenameIndexPath::trapOpsQueued(uint32_t warp) const {
  for (const TrapOpReq& t : trap_ops_)
    if (t.warp == warp) return true;
  return false;
}

void RenameIndexPath::applyOp() { present(op_); }

void RenameIndexPath::present(const OpRequest& op) {
  const uint32_t w = op.warp;
  Shadow& s = shadow_[w];
  in_.op = op;
  in_.dbg_warp = w;
  // The unit's outputs for the operation come with this evaluation (the
  // renames of the cycle were evaluated before it: the unit sees it now).
  evaluate();
  if (op.op == Op::Ret) {
    // The caller's RFP, read from the row the unit names (RFP - 1).
    const uint32_t want_row = s.row(s.rfp - 1);
    if (out_.restore_idx != want_row)
      fail(fmt::format("warp {} Ret reads the saved RFP from row {}; the rule gives row {}", w, out_.restore_idx,
                       want_row));
    if (s.saved.empty()) fail(fmt::format("warp {} Ret without an open frame", w));
    const uint32_t saved_row = s.row(s.saved.back());
    const uint32_t value = rows_.read ? rows_.read(out_.restore_idx) : saved_row;
    if (value != saved_row)
      fail(fmt::format("warp {} Ret: row {} holds {} as the caller's RFP, the shadow saved {} (a register-file "
                       "write overwrote it, or a spilled frame was not filled back)",
                       w, out_.restore_idx, value, saved_row));
    in_.op.saved_rfp = value;
    evaluate();
  }
  const uint64_t depth = s.rsp - s.rfp;
  bool expect_overflow = false, expect_illegal = false;
  switch (op.op) {
    case Op::Call: expect_overflow = s.free < op.n + 1; break;
    case Op::Push: expect_overflow = s.free < op.n || depth + op.n >= s.k; break;
    case Op::Pop: expect_illegal = op.n > depth; break;
    case Op::Spill: expect_illegal = uint64_t{s.free} + op.n > s.k; break;
    case Op::Fill: expect_overflow = s.free < op.n; break;
    default: break;
  }
  if (out_.overflow != expect_overflow || out_.illegal != expect_illegal ||
      out_.ack == (expect_overflow || expect_illegal))
    fail(fmt::format("warp {} {} {}: ack {} overflow {} illegal {}; the rule gives overflow {} illegal {} (free {}, "
                     "depth {})",
                     w, opName(op.op), op.n, out_.ack, out_.overflow, out_.illegal, expect_overflow, expect_illegal,
                     s.free, depth));
  if (!out_.ack)
    fail(fmt::format("warp {} {} {} refused by the unit (free {}, depth {}): the issue stage must check room first", w,
                     opName(op.op), op.n, s.free, depth));
  switch (op.op) {
    case Op::Call:
      if (!out_.save_valid || out_.save_idx != s.row(s.rsp) || out_.save_data != s.row(s.rfp))
        fail(fmt::format("warp {} Call saves RFP {} in row {} (valid {}); the rule gives RFP {} in row {}", w,
                         out_.save_data, out_.save_idx, out_.save_valid, s.row(s.rfp), s.row(s.rsp)));
      if (rows_.write) rows_.write(out_.save_idx, out_.save_data);
      s.saved.push_back(s.rfp);
      s.starts.push_back(s.rsp);
      s.rsp += 1;
      s.rfp = s.rsp;
      s.free -= 1;
      ++stats_.call_ops;
      break;
    case Op::Ret:
      s.rsp = s.rfp - 1;
      s.rfp = s.saved.back();
      s.saved.pop_back();
      s.starts.pop_back();
      s.free += static_cast<uint32_t>(depth) + 1;
      ++stats_.ret_ops;
      break;
    case Op::Push:
      s.rsp += op.n;
      s.free -= op.n;
      ++stats_.push_ops;
      break;
    case Op::Pop:
      s.rsp -= op.n;
      s.free += op.n;
      ++stats_.pop_ops;
      break;
    case Op::Spill:
      s.bottom += op.n;
      s.free += op.n;
      ++stats_.spill_ops;
      break;
    case Op::Fill:
      if (op.n > s.bottom) fail(fmt::format("warp {} Fill {} with only {} registers spilled", w, op.n, s.bottom));
      s.bottom -= op.n;
      s.free -= op.n;
      ++stats_.fill_ops;
      break;
    default: break;
  }
  // Resident registers and free ones make up the stack.
  if (s.rsp < s.bottom || s.free != s.k - (s.rsp - s.bottom))
    fail(fmt::format("warp {} after {}: {} free, but the stack of {} holds positions {}..{} (bottom {})", w,
                     opName(op.op), s.free, s.k, s.bottom, s.rsp, s.bottom));
  syncRows(w);
  unit_->tick();
}

void RenameIndexPath::applyLaunch(uint64_t now) {
  const Launch& l = launches_.front();
  in_.op = OpRequest{};
  in_.op.valid = true;
  in_.op.op = Op::Launch;
  in_.op.warp = l.warp;
  in_.op.base = l.base;
  in_.op.frame = l.frame;
  in_.op.n = l.stack;
  in_.dbg_warp = l.warp;
  evaluate();
  if (!out_.ack || out_.overflow || out_.illegal)
    fail(fmt::format("Launch of warp {} (Base {}, {} registers, stack {}) refused: ack {} overflow {} illegal {}",
                     l.warp, l.base, l.frame, l.stack, out_.ack, out_.overflow, out_.illegal));
  if (l.queued_cycle < now) stats_.launch_wait += now - l.queued_cycle;
  unit_->tick();
  pending_[l.warp] = false;
  Shadow& s = shadow_[l.warp];
  s = Shadow{};
  s.base = l.base;
  s.lo = l.base + l.frame;
  s.k = l.stack;
  s.free = l.stack;
  syncRows(l.warp);
  ++stats_.launch_ops;
  launches_.pop_front();
}

void RenameIndexPath::endCycle(uint64_t now) {
  now_ = now;
  next_cycle_ = now + 1;
  ++stats_.cycles;
  // One operation per cycle: an issued instruction's first, a Launch waits.
  if (op_.valid) {
    applyOp();
    op_ = OpRequest{};
  } else if (!trap_ops_.empty()) {
    OpRequest r;
    r.valid = true;
    r.op = trap_ops_.front().op;
    r.warp = trap_ops_.front().warp;
    r.n = trap_ops_.front().n;
    trap_ops_.pop_front();
    present(r);
  } else if (!launches_.empty()) {
    applyLaunch(now);
  } else {
    if (!evaluated_) {  // the unit is compared every cycle it is clocked
      unit_->evaluateIdle(in_, out_);
      ++stats_.evaluations;
    }
    unit_->tick();
  }
  stats_.max_renames.sampleMax(cycle_renames_);
  if (cycle_renames_ > p_.read_ports) ++stats_.port_overflow_cycles;
  in_ = Inputs{};
  ports_used_ = 0;
  cycle_renames_ = 0;
  evaluated_ = false;
}

bool RenameIndexPath::canLaunch(uint32_t num_warps, uint32_t regs_per_thread) {
  return inner_->canLaunch(num_warps, regs_per_thread);
}

bool RenameIndexPath::allocate(uint32_t block_slot, uint32_t warp_slot, uint32_t local_warp, uint32_t regs_per_thread,
                               uint32_t& base) {
  if (warp_slot >= p_.num_warps) fail(fmt::format("warp slot {} beyond the unit's {} warps", warp_slot, p_.num_warps));
  if (!inner_->allocate(block_slot, warp_slot, local_warp, regs_per_thread, base)) return false;
  regs_per_thread_ = inner_->frameRegs(regs_per_thread);
  pending_[warp_slot] = true;
  if (base == RegionAllocator::kStalled) {
    base = 0;  // no rows yet: the warp waits in the stalled-warp list
    return true;
  }
  // Queued in the cycle the next endCycle closes.
  launches_.push_back(Launch{warp_slot, base, regs_per_thread_, inner_->stackRegs(warp_slot), next_cycle_});
  return true;
}

void RenameIndexPath::release(uint32_t warp_slot) {
  inner_->release(warp_slot);
  if (warp_slot < pending_.size()) pending_[warp_slot] = false;
  // The warp status check (CARS IV-B): an exiting warp's space goes to one
  // stalled warp of the same kernel.
  grant(-1);
}

bool RenameIndexPath::grant(int64_t block) {
  uint32_t w = 0, base = 0;
  bool restore = false;
  if (!inner_->grantStalled(block, w, base, restore)) return false;
  launches_.push_back(Launch{w, base, regs_per_thread_, inner_->stackRegs(w), next_cycle_});
  ++stats_.granted;
  if (restore) {
    ++stats_.restored;
    if (restore_) restore_(w, base);
  }
  return true;
}

void RegionAllocator::switchOut(uint32_t warp_slot) {
  throw Error(fmt::format("warp slot {}: this register allocation cannot switch a warp out", warp_slot));
}

void RenameIndexPath::switchOut(uint32_t warp, int64_t block) {
  if (warp >= p_.num_warps || pending_[warp]) fail(fmt::format("switch-out of warp {}, which has no register space", warp));
  const Shadow& s = shadow_[warp];
  if (!s.saved.empty() || s.rsp != s.rfp)
    fail(fmt::format("switch-out of warp {} with {} open frames (only a warp in its kernel's body moves)", warp,
                     s.saved.size()));
  inner_->switchOut(warp);
  pending_[warp] = true;
  ++stats_.switched_out;
  grant(block);
}

void RenameIndexPath::grantWaiting() {
  while (grant(-1)) {
  }
}

std::string RenameIndexPath::describe() const {
  std::string s = inner_->describe();
  if (!launches_.empty() || !trap_ops_.empty())
    s += fmt::format("{}{} Launch and {} trap operations queued for the rename unit's port", s.empty() ? "" : "; ",
                     launches_.size(), trap_ops_.size());
  return s;
}

}  // namespace rfsim::cars
