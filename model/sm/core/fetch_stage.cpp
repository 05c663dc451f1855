// The fetch stage (fetch_stage.h).
#include "sm/core/fetch_stage.h"

#include <algorithm>

namespace rfsim::sm {

FetchStage::FetchStage(const config::GpuConfig& cfg, FetchStats& stats, const std::vector<uint32_t>& func_instrs)
    : depth_(cfg.pipeline.ibuffer_depth), per_sub_(cfg.pipeline.fetch_width / cfg.sm.sub_cores),
      l1i_hit_(cfg.l1i.latency),
      ib_(cfg.sm.max_warps), path_(cfg, stats, func_instrs), rr_(cfg.sm.sub_cores, 0),
      in_flight_((cfg.sm.max_warps + 63) / 64, 0), stats_(stats) {
  if (per_sub_ == 0) per_sub_ = 1;  // validated configurations split evenly (config_validate.cpp)
}

void FetchStage::takeArrived(uint64_t now) {
  uint64_t next = kNever;
  for (size_t w = 0; w < in_flight_.size(); ++w) {
    uint64_t bits = in_flight_[w];
    while (bits) {
      const uint32_t bit = static_cast<uint32_t>(__builtin_ctzll(bits));
      bits &= bits - 1;
      const uint32_t s = static_cast<uint32_t>(w * 64 + bit);
      const IBuffer& b = ib_[s];
      if (!b.pending) in_flight_[w] &= ~(uint64_t{1} << bit);  // flushed
      else if (now >= b.ready_at) take(s);
      else next = std::min(next, b.ready_at);
    }
  }
  next_arrival_ = next;
}

void FetchStage::afterIssue(uint32_t slot, const func::BlockStepper& st, uint32_t local, const func::StepInfo& info) {
  IBuffer& b = ib_[slot];
  const func::WarpStatus fs = st.status(local);
  if (fs == func::WarpStatus::Ready) {
    const bool seq = st.peekFunc(local) == info.func && st.peekPc(local) == info.pc + 1;
    if (!seq || info.divergent) {
      if (b.valid || b.pending) ++stats_.ibuffer_flushes;
      b = IBuffer{};
    }
  }
  if (fs == func::WarpStatus::Done) b = IBuffer{};
}

}  // namespace rfsim::sm
