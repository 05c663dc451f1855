// Dependency barriers (dep_barriers.h).
#include "sm/core/dep_barriers.h"

#include <fmt/format.h>

#include "common/error.h"

namespace rfsim::sm {

Stall DepBarriers::stall(uint32_t s, const func::BlockStepper& st, uint32_t local, const func::DInstr* d,
                         uint64_t now) {
  const ptx::Instr& in = *d->in;
  // Dual issue (pipeline.dual_issue): an instruction with a stall of 1 has
  // no fixed-latency reader next, so the next one may go in the same cycle
  // (holds()).
  if (const int why = holds(s, in, now)) {
    countHold(why);
    return Stall::Scoreboard;
  }
  if (!sb_.hazardOf(s, d->reads.data(), d->nreads, d->writes.data(), d->nwrites)) return Stall::None;
  const auto& g = guarded_[s];
  auto check = [&](uint32_t r, const char* how) {
    if (r >= g.size() || !g.test(r)) return;
    const ptx::Function& fn = program_.module().functions[st.peekFunc(local)];
    throw Error(fmt::format(
        "sm.dependency barriers: {} {} at pc {} ({}) {} {} while the instruction that writes it is in flight, "
        "and it waits on no barrier that guards it (wait mask {:#04x}): the control codes are wrong (warp slot {})",
        fn.is_entry ? "kernel" : "function", fn.name, st.peekPc(local), ptx::opName(in.op), how,
        ptx::mach::regName(r), in.wait, s));
  };
  for (uint32_t i = 0; i < d->nreads; ++i) check(d->reads[i], "reads");
  for (uint32_t i = 0; i < d->nwrites; ++i) check(d->writes[i], "writes");
  ++stats_.dep_interlocks;
  return Stall::Scoreboard;
}

std::pair<uint8_t, uint8_t> DepBarriers::issued(uint32_t s, const func::DInstr& d, bool writes, uint64_t now) {
  const ptx::Instr& in = *d.in;
  Warp& ws = w_[s];
  if (in.stall == 0)
    throw Error(fmt::format("sm.dependency barriers: {} at warp slot {} has no control code (stall count 0): the "
                            "program was not compiled for dependency barriers",
                            ptx::opName(in.op), s));
  ws.next = now + in.stall;
  ws.pair = in.stall == 1 && ws.pair != now ? now : UINT64_MAX;  // at most a pair
  // An instruction that writes nothing (or whose write the SM does not
  // track, a control transfer) lowers its write barrier when it completes.
  for (uint8_t v : {in.wbar, in.rbar})
    if (v) {
      raise(ws, v);
      ++stats_.dep_barrier_sets;
    }
  if (in.wbar && writes)
    for (uint32_t i = 0; i < d.nwrites; ++i)
      if (d.writes[i] < guarded_[s].size()) guarded_[s].set(d.writes[i]);
  return {in.wbar, in.rbar};
}

void DepBarriers::written(uint32_t s, uint8_t wbar, const func::DInstr& d, bool writes) {
  if (wbar) {
    lower(w_[s], wbar);
    if (writes)
      for (uint32_t i = 0; i < d.nwrites; ++i)
        if (d.writes[i] < guarded_[s].size()) guarded_[s].reset(d.writes[i]);
  }
}

}  // namespace rfsim::sm
