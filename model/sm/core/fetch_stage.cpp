// The fetch stage (fetch_stage.h).
#include "sm/core/fetch_stage.h"

#include <algorithm>

namespace rfsim::sm {

FetchStage::FetchStage(const config::GpuConfig& cfg, FetchStats& stats, const std::vector<uint32_t>& func_instrs)
    : depth_(cfg.pipeline.ibuffer_depth), per_sub_(cfg.pipeline.fetch_width / cfg.sm.sub_cores),
      l1i_hit_(cfg.l1i.latency), call_ret_(cfg.pipeline.call_ret_cycles),
      ib_(cfg.sm.max_warps), path_(cfg, stats, func_instrs), rr_(cfg.sm.sub_cores, 0),
      in_flight_((cfg.sm.max_warps + 63) / 64, 0), pos_(cfg.sm.max_warps),
      stats_(stats) {
  if (per_sub_ == 0) per_sub_ = 1;  // validated configurations split evenly (config_validate.cpp)
  const uint32_t subs = path_.subCores();
  words_ = ((cfg.sm.max_warps + subs - 1) / subs + 63) / 64;  // ceil(slots a sub-core / 64)
  // Every slot starts marked: the first visit unmarks a free one.
  want_.assign(size_t(subs) * words_, 0);
  for (uint32_t s = 0; s < cfg.sm.max_warps; ++s) {
    const uint32_t k = s % subs, idx = s / subs;
    pos_[s] = (k * words_ + idx / 64) << 6 | (idx % 64);
    mark(s);
  }
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

void FetchStage::afterIssue(uint32_t slot, const func::BlockStepper& st, uint32_t local, const func::StepInfo& info,
                            uint64_t now) {
  IBuffer& b = ib_[slot];
  const func::WarpStatus fs = st.status(local);
  if (fs == func::WarpStatus::Ready) {
    const bool seq = st.peekFunc(local) == info.func && st.peekPc(local) == info.pc + 1;
    if (!seq || info.divergent) {
      if (b.valid || b.pending) ++stats_.ibuffer_flushes;
      b = IBuffer{};
      mark(slot);
    }
    if (call_ret_ && (info.call || info.ret) && !seq) b.not_before = now + call_ret_;
  }
  if (fs == func::WarpStatus::Done) {
    b = IBuffer{};
    mark(slot);
  }
}

}  // namespace rfsim::sm
