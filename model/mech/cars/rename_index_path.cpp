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
               "cycles with more renames than rename ports (the hardware would need more ports)") {}

RenameIndexPath::RenameIndexPath(std::unique_ptr<RenameUnit> unit, sm::WarpRegAllocator* inner,
                                 stats::Group* stats_parent)
    : unit_(std::move(unit)),
      inner_(inner ? inner : &base_alloc_),
      p_(unit_->params()),
      stats_(stats_parent),
      pending_(p_.num_warps, false),
      expect_(p_.num_warps, 0) {}

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

uint32_t RenameIndexPath::translate(uint32_t warp, uint32_t reg) {
  if (warp >= p_.num_warps) fail(fmt::format("warp slot {} beyond the unit's {} warps", warp, p_.num_warps));
  if (pending_[warp]) fail(fmt::format("warp {} reads R{} before its Launch operation took effect", warp, reg));
  // The ports of one cycle fill in order; when all are taken the next
  // rename starts over at port 0 (counted: the hardware needs more ports).
  if (ports_used_ == p_.read_ports) ports_used_ = 0;
  const uint32_t port = ports_used_++;
  in_.rd[port] = ReadRequest{warp, reg};
  evaluate();
  ++stats_.renames;
  ++cycle_renames_;
  const uint32_t idx = out_.rd_idx[port];
  // CARS III-A: a register not pushed on the warp's stack is Base + x.
  const uint32_t want = (expect_[warp] + reg) & (p_.num_regs - 1);
  if (idx != want || out_.rd_stacked[port])
    fail(fmt::format("warp {} R{} renamed to row {}{}; Base {} + R{} is row {}", warp, reg, idx,
                     out_.rd_stacked[port] ? " (stacked)" : "", expect_[warp], reg, want));
  return idx;
}

void RenameIndexPath::endCycle(uint64_t now) {
  now_ = now;
  next_cycle_ = now + 1;
  ++stats_.cycles;
  if (!launches_.empty()) {
    const Launch& l = launches_.front();
    in_.op = OpRequest{};
    in_.op.valid = true;
    in_.op.op = Op::Launch;
    in_.op.warp = l.warp;
    in_.op.base = l.base;
    in_.op.frame = l.frame;
    in_.op.n = 0;  // baseline: no register stack
    in_.dbg_warp = l.warp;
    // The operation's outputs come with this evaluation (renames of this
    // cycle were evaluated before the operation was known: the unit sees
    // it now, and the lockstep compares again).
    evaluate();
    if (!out_.ack || out_.overflow || out_.illegal)
      fail(fmt::format("Launch of warp {} (Base {}, {} registers) refused: ack {} overflow {} illegal {}", l.warp,
                       l.base, l.frame, out_.ack, out_.overflow, out_.illegal));
    if (l.queued_cycle < now) stats_.launch_wait += now - l.queued_cycle;
    unit_->tick();
    pending_[l.warp] = false;
    expect_[l.warp] = l.base;
    ++stats_.launch_ops;
    launches_.pop_front();
  } else {
    if (!evaluated_) evaluate();  // the unit is compared every cycle it is clocked
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
  pending_[warp_slot] = true;
  // Queued in the cycle the next endCycle closes.
  launches_.push_back(Launch{warp_slot, base, regs_per_thread, next_cycle_});
  return true;
}

void RenameIndexPath::release(uint32_t warp_slot) { inner_->release(warp_slot); }

}  // namespace rfsim::cars
