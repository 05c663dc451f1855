// Maxwell-style dependency control in the SM (sm.dependency: barriers;
// sm.h: depStall; the codes come from backend/depctl.h). Each warp has 6
// dependency barriers, counters: an instruction with a write barrier
// raises it at issue and lowers it when its results are written, one with
// a read barrier when its operands have been read; an instruction waits
// until every barrier of its wait mask is zero, and the warp's next
// instruction issues no earlier than the stall count of the last one allows.
//
// Our SM reads operands through operand collectors, so a fixed-latency
// result can come later than the stall counts assume (a bank conflict, a
// busy write port): the scoreboard still holds such a register and the
// warp waits for it, as Maxwell's pipeline stalls on a register bank
// conflict. A register a write barrier guards must never be found reserved:
// the code did not wait for it, which is a control-code error.
#include <algorithm>

#include <fmt/format.h>

#include "common/error.h"
#include "sm/core/sm.h"

namespace rfsim::sm {

Stall Sm::depStall(uint32_t s, WarpSlot& ws, const func::DInstr* d, uint64_t now) {
  const ptx::Instr& in = *d->in;
  // Dual issue (pipeline.dual_issue): an instruction with a stall of 1 has
  // no fixed-latency reader next, so the next one may go in the same cycle.
  if (now < ws.dep_next && ws.dep_pair != now) {
    ++stats_->issue.dep_stall_count_waits;
    return Stall::Scoreboard;
  }
  for (uint32_t b = 0; b < ws.bars.size(); ++b)
    if ((in.wait >> b & 1) && ws.bars[b]) {
      ++stats_->issue.dep_barrier_waits;
      return Stall::Scoreboard;
    }
  if (!sb_.hazardOf(s, d->reads.data(), d->nreads, d->writes.data(), d->nwrites)) return Stall::None;
  const auto& g = guarded_[s];
  auto check = [&](uint32_t r, const char* how) {
    if (r >= g.size() || !g.test(r)) return;
    const func::BlockStepper& st = *blocks_[ws.block]->stepper;
    const ptx::Function& fn = program_.module().functions[st.peekFunc(ws.local)];
    throw Error(fmt::format(
        "sm.dependency barriers: {} {} at pc {} ({}) {} {} while the instruction that writes it is in flight, "
        "and it waits on no barrier that guards it (wait mask {:#04x}): the control codes are wrong (warp slot {})",
        fn.is_entry ? "kernel" : "function", fn.name, st.peekPc(ws.local), ptx::opName(in.op), how,
        ptx::mach::regName(r), in.wait, s));
  };
  for (uint32_t i = 0; i < d->nreads; ++i) check(d->reads[i], "reads");
  for (uint32_t i = 0; i < d->nwrites; ++i) check(d->writes[i], "writes");
  ++stats_->issue.dep_interlocks;
  return Stall::Scoreboard;
}

void Sm::depIssued(WarpSlot& ws, uint32_t s, const ptx::Instr& in, Inflight& f, uint64_t now) {
  if (in.stall == 0)
    throw Error(fmt::format("sm.dependency barriers: {} at warp slot {} has no control code (stall count 0): the "
                            "program was not compiled for dependency barriers",
                            ptx::opName(in.op), s));
  ws.dep_next = now + in.stall;
  ws.dep_pair = in.stall == 1 && ws.dep_pair != now ? now : UINT64_MAX;  // at most a pair
  f.wbar = in.wbar;
  f.rbar = in.rbar;
  // An instruction that writes nothing (or whose write the SM does not
  // track, a control transfer) lowers its write barrier when it completes.
  for (uint8_t v : {in.wbar, in.rbar})
    if (v) {
      ++ws.bars[v - 1u];
      ++stats_->issue.dep_barrier_sets;
    }
  if (in.wbar && f.writes)
    for (uint32_t i = 0; i < f.d->nwrites; ++i)
      if (f.d->writes[i] < guarded_[s].size()) guarded_[s].set(f.d->writes[i]);
}

void Sm::depRead(const Inflight& f) {
  if (f.rbar) --slots_[f.slot].bars[f.rbar - 1u];
}

void Sm::depWritten(const Inflight& f) {
  if (f.wbar) {
    --slots_[f.slot].bars[f.wbar - 1u];
    if (f.writes)
      for (uint32_t i = 0; i < f.d->nwrites; ++i)
        if (f.d->writes[i] < guarded_[f.slot].size()) guarded_[f.slot].reset(f.d->writes[i]);
  }
}

}  // namespace rfsim::sm
