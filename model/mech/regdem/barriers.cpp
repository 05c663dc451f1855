// RegDem's barrier assignment for the demoted accesses (demote.h:
// assignDemotionBarriers; the paper's Fig. 3, lines 8-31 and the tracker
// functions; docs/regdem.md).
#include <algorithm>

#include "backend/depctl.h"
#include "mech/regdem/demote.h"

namespace rfsim::regdem {

namespace {

uint8_t bit(uint8_t bar) { return bar ? static_cast<uint8_t>(1u << (bar - 1u)) : 0; }

}  // namespace

uint32_t assignDemotionBarriers(ptx::Function& fn, const backend::DepTimingFn& timing, bool lazy_stores) {
  uint32_t set = 0;
  backend::BarrierTracker tracker;
  for (auto& bb : fn.blocks) {
    auto& code = bb.instrs;
    tracker.reset();  // a label: the barriers were cleared at the jumps into it
    // A demoted store (the group of them after a write of RDV) waits for
    // its writer's results: the writer's write barrier, given one if it is
    // high-latency and has none.
    auto waitOnWriter = [&](size_t i) {
      size_t p = i;
      while (p > 0 && code[p - 1].role == ptx::MRole::DemStore) --p;
      if (p == 0) return;
      ptx::Instr& producer = code[p - 1];
      if (!producer.wbar && timing(producer).variable) {
        producer.wbar = static_cast<uint8_t>(tracker.get() + 1);
        ++set;
      }
      code[i].wait |= bit(producer.wbar);
    };
    for (size_t i = 0; i < code.size(); ++i) {
      ptx::Instr& in = code[i];
      const backend::DepTiming dt = timing(in);
      if (in.role == ptx::MRole::DemStore && lazy_stores) {
        // The schedule update (section 3.4.2) drops the store's barrier
        // where RDV is not rewritten before the store has read it: it waits
        // on its writer only, and the back end gives it a read barrier only
        // where a later write of its register before the next jump needs
        // one, waited on by that write (backend/depctl.h).
        waitOnWriter(i);
        in.rbar = in.wbar = 0;
      } else if (in.role == ptx::MRole::DemStore) {
        // After the write of RDV (the instruction before this group of
        // stores): wait for its write barrier, giving a high-latency writer
        // one if it has none; set a read barrier the next instruction waits
        // on, so RDV is not overwritten before the store has read it.
        waitOnWriter(i);
        in.rbar = static_cast<uint8_t>(tracker.get() + 1);
        in.wbar = 0;
        ++set;
        if (i + 1 < code.size()) code[i + 1].wait |= bit(in.rbar);
      } else if (in.role == ptx::MRole::DemLoad) {
        // Before the read of RDV: a read barrier (RDA) and a write barrier
        // (RDV), both waited on by the reader (the instruction after this
        // group of loads); after a demoted store, wait until it has read RDV.
        in.rbar = static_cast<uint8_t>(tracker.get() + 1);
        in.wbar = static_cast<uint8_t>(tracker.get(in.rbar - 1u) + 1);
        set += 2;
        // Its reader: the next instruction that names its register (the
        // one right after the group of loads unless the schedule update
        // hoisted it).
        const uint32_t dst = in.dst[0].regs[0];
        std::vector<uint32_t> u, d;
        size_t r = i + 1;
        for (; r < code.size(); ++r) {
          backend::instrRegs(code[r], fn, u, d);
          if (std::find(u.begin(), u.end(), dst) != u.end() || std::find(d.begin(), d.end(), dst) != d.end()) break;
        }
        if (r < code.size()) code[r].wait |= static_cast<uint8_t>(bit(in.rbar) | bit(in.wbar));
        if (i > 0 && code[i - 1].role == ptx::MRole::DemStore) in.wait |= bit(code[i - 1].rbar);
      }
      if (!in.stall) in.stall = 1;
      tracker.update(in, dt.kind, dt.latency);
      if (backend::isJump(in)) tracker.reset();
    }
  }
  return set;
}

}  // namespace rfsim::regdem
