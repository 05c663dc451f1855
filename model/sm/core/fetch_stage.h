// The fetch stage: each warp's instruction buffer and the SM's L1I (sm.h
// "Simplifications": an unbounded set of 128-byte lines, line = function
// index, pc * 16 / 128; a fetch touching a line never fetched before costs
// pipeline.l1i_miss_latency, otherwise l1i.latency). An I-buffer is a count
// of valid entries of the warp's straight-line stream plus one fill in
// flight; it is flushed after a non-sequential pc change. Its latch to
// issue: hasInstr / pop.
#pragma once

#include <cstdint>
#include <set>
#include <vector>

#include "config/gpu_config.h"
#include "func/stepper.h"
#include "sm/core/sm_stats.h"

namespace rfsim::sm {

class FetchStage {
 public:
  FetchStage(const config::GpuConfig& cfg, FetchStats& stats)
      : depth_(cfg.pipeline.ibuffer_depth), width_(cfg.pipeline.fetch_width),
        hit_latency_(cfg.l1i.latency), miss_latency_(cfg.pipeline.l1i_miss_latency), ib_(cfg.sm.max_warps),
        stats_(stats) {}

  // A warp enters or leaves slot `slot`: its I-buffer is empty.
  void reset(uint32_t slot) { ib_[slot] = IBuffer{}; }
  // Whether warp `slot`'s I-buffer holds an instruction at `now` (a fill
  // that has arrived is valid from then on).
  bool hasInstr(uint32_t slot, uint64_t now) {
    IBuffer& b = ib_[slot];
    if (b.pending && now >= b.ready_at) {
      b.valid += b.pending;
      b.pending = 0;
    }
    return b.valid != 0;
  }
  // An instruction left the buffer (issued, or elided).
  void pop(uint32_t slot) { --ib_[slot].valid; }
  // After warp `local` of `st` in slot `slot` issued `info`: the buffer
  // holds the straight-line stream after the issued pc; any other next pc
  // (taken branch, call, return, divergence) flushes it.
  void afterIssue(uint32_t slot, const func::BlockStepper& st, uint32_t local, const func::StepInfo& info);

  // One cycle: up to fetch_width warps (round robin from the one after the
  // last fetched) top their I-buffer up to ibuffer_depth. `warps` gives,
  // per slot, `func::BlockStepper* stepper(uint32_t slot, uint32_t& local)`
  // (null: a free slot) and `void finished(uint32_t slot)`, called for a
  // warp whose every lane exited (the SM frees its slot when nothing of it
  // is in flight).
  template <class Warps>
  void cycle(uint64_t now, Warps& warps);

  // The cycle the fill in flight of slot `slot` arrives; UINT64_MAX: none.
  uint64_t fillAt(uint32_t slot) const { return ib_[slot].pending ? ib_[slot].ready_at : UINT64_MAX; }
  uint32_t valid(uint32_t slot) const { return ib_[slot].valid; }
  uint32_t pending(uint32_t slot) const { return ib_[slot].pending; }

 private:
  struct IBuffer {
    uint32_t valid = 0, pending = 0;
    uint64_t ready_at = 0;
  };
  uint32_t depth_, width_;
  uint64_t hit_latency_, miss_latency_;
  std::vector<IBuffer> ib_;  // per warp slot
  std::set<uint64_t> l1i_lines_;
  uint32_t rr_ = 0;
  FetchStats& stats_;
};

template <class Warps>
void FetchStage::cycle(uint64_t now, Warps& warps) {
  const uint32_t nslots = static_cast<uint32_t>(ib_.size());
  uint32_t fetched = 0;
  // Warps whose last instruction issued free their slot here too (a warp
  // that exits with nothing in flight).
  for (uint32_t k = 0; k < nslots && fetched < width_; ++k) {
    const uint32_t s = (rr_ + k) % nslots;
    uint32_t local = 0;
    func::BlockStepper* st = warps.stepper(s, local);
    if (!st) continue;
    const func::WarpStatus fs = st->status(local);
    if (fs == func::WarpStatus::Done) {
      warps.finished(s);
      continue;
    }
    IBuffer& b = ib_[s];
    if (fs != func::WarpStatus::Ready || b.pending || b.valid >= depth_) continue;
    const uint64_t fn = st->peekFunc(local);
    const uint32_t pc0 = st->peekPc(local) + b.valid;
    bool miss = false;
    for (uint32_t pc = pc0; pc < pc0 + (depth_ - b.valid); ++pc) {
      const uint64_t line = (fn << 32) | (uint64_t(pc) * 16 / 128);
      if (l1i_lines_.insert(line).second) miss = true;
    }
    if (miss) ++stats_.l1i_misses; else ++stats_.l1i_hits;
    b.pending = depth_ - b.valid;
    b.ready_at = now + (miss ? miss_latency_ : hit_latency_);
    ++fetched;
    rr_ = (s + 1) % nslots;
  }
}

}  // namespace rfsim::sm
