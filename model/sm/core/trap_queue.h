// Traps (extension point (i), hooks.h): per warp, the spills and fills a
// mechanism injected with Sm::trap, issued one per issue slot the warp wins
// before its next instruction; the warp goes on only when all of them
// completed. This class keeps the queues and their instructions; the Sm
// issues them through its issue stage as local stores and loads.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "func/decode.h"
#include "ptx/ir.h"
#include "sm/core/hooks.h"

namespace rfsim::sm {

class TrapQueue {
 public:
  // One trap operation and the instruction a trap handler would run for it
  // (st.local.b32 [offset], R / ld.local.b32 R, [offset], 4 bytes per
  // lane); it stays put while in flight (a deque does not move its elements).
  struct Entry {
    TrapOp op;
    ptx::Instr in;
    func::DInstr d;
  };

  explicit TrapQueue(uint32_t max_warps) : t_(max_warps) {}
  // Queues `ops` for warp `slot` after the ones queued before; `listener`
  // (may be null) replaces the warp's. Throws rfsim::Error for a register
  // that is not a general one.
  void add(uint32_t slot, const std::vector<TrapOp>& ops, TrapListener* listener);
  // Whether warp `slot` has trap operations not yet completed.
  bool active(uint32_t slot) const { return t_[slot] != nullptr; }
  // All queued operations of `slot` issued (the warp waits for them).
  bool allIssued(uint32_t slot) const { return t_[slot]->next == t_[slot]->ops.size(); }
  // Operations of `slot` issued and not completed.
  uint32_t inflight(uint32_t slot) const { return t_[slot]->inflight; }
  // The operation of `slot` to issue next (precondition: !allIssued).
  const Entry& peek(uint32_t slot) const { return t_[slot]->ops[t_[slot]->next]; }
  // It issues.
  const Entry& pop(uint32_t slot) {
    Trap& t = *t_[slot];
    ++t.inflight;
    return t.ops[t.next++];
  }
  // Operation `e` of `slot` completed at `now`: its listener hears of it
  // and, after the last one, of the end (the warp then issues again; the
  // listener may trap it again).
  void done(uint32_t slot, const Entry& e, uint64_t now);
  // For the SM's deadlock report: "" when not trapping.
  std::string describe(uint32_t slot) const;

 private:
  struct Trap {
    std::deque<Entry> ops;
    size_t next = 0;  // the next to issue
    uint32_t inflight = 0;
    TrapListener* listener = nullptr;
  };
  std::vector<std::unique_ptr<Trap>> t_;  // per warp slot; null: not trapping
};

}  // namespace rfsim::sm
