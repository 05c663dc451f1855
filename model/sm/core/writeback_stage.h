// The write-back stage. Its latch in is the write-back queue, which the
// execute stage fills with the tags of instructions whose unit finished
// (push); each cycle every queued instruction books register-file write
// ports for its destinations (OperandCollector::requestWrites, part of them
// when ports are short: the rest retries next cycle, behind the queue), and
// once all are written its scoreboard entries are released and its
// dependency barriers lowered. The SM then retires it (the warp's counts, a
// trap operation's completion, a finished warp's slot).
#pragma once

#include <cstdint>
#include <deque>

#include "sm/core/dep_barriers.h"
#include "sm/core/inflight.h"
#include "sm/core/sm_stats.h"
#include "sm/issue/scoreboard.h"
#include "sm/opcoll/operand_collector.h"

namespace rfsim::sm {

class WritebackStage {
 public:
  WritebackStage(InflightTable& inflight, Scoreboard& sb, DepBarriers& deps, SmStats& stats)
      : inflight_(inflight), sb_(sb), deps_(deps), stats_(stats) {}
  // The operand collector whose write ports it books (the SM's, again
  // after Sm::install replaced it).
  void setCollector(OperandCollector& opc) { opc_ = &opc; }
  // Sm::setTraceSlot.
  void setTraceSlot(int64_t slot) { trace_slot_ = slot; }

  // The latch in: an instruction whose execution unit finished.
  void push(uint32_t tag) { q_.push_back(tag); }
  bool empty() const { return q_.empty(); }
  // Instructions written back so far (the watchdog's progress).
  uint64_t retired() const { return done_; }

  // One cycle: the instructions queued at its start, in order; each one
  // fully written back goes to `retire(tag, const Inflight&)`, which frees
  // its entry.
  template <class Retire>
  void cycle(uint64_t now, Retire retire);

 private:
  void traceRefused(uint64_t now, uint32_t tag, const Inflight& f, unsigned k) const;
  void traceDone(uint64_t now, uint32_t tag, const Inflight& f) const;

  InflightTable& inflight_;
  Scoreboard& sb_;
  DepBarriers& deps_;
  SmStats& stats_;
  OperandCollector* opc_ = nullptr;
  std::deque<uint32_t> q_;
  uint64_t done_ = 0;
  int64_t trace_slot_ = -1;
};

template <class Retire>
void WritebackStage::cycle(uint64_t now, Retire retire) {
  const size_t n = q_.size();
  for (size_t i = 0; i < n; ++i) {
    const uint32_t tag = q_.front();
    q_.pop_front();
    Inflight& f = inflight_[tag];
    if (f.writes) {
      uint16_t regs[16];
      const unsigned k = bankRegs(f.d->writes.data(), f.d->nwrites, regs, 16);
      if (f.written < k) {
        f.written = static_cast<uint8_t>(f.written + opc_->requestWrites(f.slot, regs + f.written, k - f.written,
                                                                       f.rows_known ? f.wrow.data() + f.written : nullptr));
        if (f.written < k) {
          ++stats_.writeback_retries;
          if (static_cast<int64_t>(f.slot) == trace_slot_) traceRefused(now, tag, f, k);
          q_.push_back(tag);
          continue;
        }
      }
      uint32_t w32[16];
      for (unsigned j = 0; j < f.d->nwrites; ++j) w32[j] = f.d->writes[j];
      if (!f.trap || f.trap->op.row == TrapOp::kNoRow)  // a trap's row was not in the scoreboard
        sb_.release(f.slot, w32, f.d->nwrites, f.long_latency);
    }
    if (f.wbar) deps_.written(f.slot, f.wbar, *f.d, f.writes);
    if (static_cast<int64_t>(f.slot) == trace_slot_) traceDone(now, tag, f);
    ++done_;
    retire(tag, static_cast<const Inflight&>(f));
  }
}

}  // namespace rfsim::sm
