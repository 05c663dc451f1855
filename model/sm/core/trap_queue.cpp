// Traps (trap_queue.h).
#include "sm/core/trap_queue.h"

#include <fmt/format.h>

#include "common/error.h"
#include "ptx/machine.h"

namespace rfsim::sm {

void TrapQueue::add(uint32_t s, const std::vector<TrapOp>& ops, TrapListener* listener) {
  if (ops.empty()) return;
  if (!t_[s]) t_[s] = std::make_unique<Trap>();
  Trap& t = *t_[s];
  if (listener) t.listener = listener;
  for (const TrapOp& op : ops) {
    if (op.reg >= ptx::mach::kPredBase)
      throw Error(fmt::format("Sm::trap: warp slot {}: register {} is not a general register", s, op.reg));
    Entry& e = t.ops.emplace_back();
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

void TrapQueue::done(uint32_t s, const Entry& e, uint64_t now) {
  Trap& t = *t_[s];
  --t.inflight;
  const TrapOp op = e.op;
  TrapListener* l = t.listener;
  const bool last = t.inflight == 0 && t.next == t.ops.size();
  if (last) t_[s].reset();  // before the listener: it may trap again
  if (l) {
    l->trapOpDone(s, op, now);
    if (last) l->trapDone(s, now);
  }
}

std::string TrapQueue::describe(uint32_t s) const {
  if (!t_[s]) return {};
  const Trap& t = *t_[s];
  return fmt::format(" | trapping: {} of {} operations issued, {} in flight", t.next, t.ops.size(), t.inflight);
}

}  // namespace rfsim::sm
