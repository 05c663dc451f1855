#include "sm/core/writeback_stage.h"

#include "sm/core/sm_internal.h"

namespace rfsim::sm {

// The debug trace's lines (Sm::setTraceSlot), out of the hot loop.
void WritebackStage::traceRefused(uint64_t now, uint32_t tag, const Inflight& f, unsigned k) const {
  RFSIM_SM_TRACE_EV(f.slot, "writeback refused (write port) tag {} pc {} ({} of {} written)", tag, f.pc, f.written,
                    k);
}

void WritebackStage::traceDone(uint64_t now, uint32_t tag, const Inflight& f) const {
  RFSIM_SM_TRACE_EV(f.slot, "writeback tag {} pc {} {} (scoreboard released)", tag, f.pc, ptx::opName(f.d->in->op));
}

}  // namespace rfsim::sm
