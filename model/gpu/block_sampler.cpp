#include "gpu/block_sampler.h"

#include <algorithm>
#include <cmath>

namespace rfsim::gpu {

BlockSampler::BlockSampler(uint64_t sms, uint64_t blocks, uint32_t window, double tolerance, double min_share,
                           uint64_t l2_lines, double block_tolerance)
    : sms_(std::max<uint64_t>(1, sms)),
      blocks_(blocks),
      l2_lines_(l2_lines),
      window_(std::max<uint32_t>(2, window)),
      tolerance_(tolerance),
      min_share_(min_share),
      block_tolerance_(block_tolerance) {}

bool BlockSampler::observe(uint64_t cycle, bool retired, uint64_t warp_instrs, uint64_t unstarted, const SampledMemory& mem,
                           uint64_t retired_blocks) {
  if (cut_) return true;
  if (length_ == 0) {  // the first retirement: the intervals' length and first boundary
    if (!retired) return false;
    length_ = std::max<uint64_t>(1, cycle);
    next_ = cycle + length_;
    points_.push_back({cycle, warp_instrs, mem, retired_blocks});
    return false;
  }
  if (cycle < next_) return false;  // SMs' local times differ: the latest one closes an interval
  if (relearn_) {
    // A cut was withdrawn: the blocks' work changes along the grid, and
    // their lives with it; intervals as long as the first blocks lived may
    // now be a fraction of one block's life. The life from the last
    // interval, by Little's law (blocks resident over blocks retired per
    // cycle), or twice the length while none retires; the window starts
    // again from here at the new length.
    const Point& last = points_.back();
    const uint64_t ret = retired_blocks - last.retired_blocks, c = cycle - last.cycle;
    const uint64_t issued = blocks_ - std::min(blocks_, unstarted);
    const uint64_t resident = issued - std::min(issued, retired_blocks);
    const uint64_t life = ret ? resident * c / ret : 2 * length_;
    if (ret) relearn_ = false;
    if (life > length_) {
      length_ = life;
      points_.clear();
      points_.push_back({cycle, warp_instrs, mem, retired_blocks});
      next_ = cycle + length_;
      return false;
    }
  }
  points_.push_back({cycle, warp_instrs, mem, retired_blocks});
  next_ = cycle + length_;
  ++intervals_;
  if (points_.size() > window_ + 1) points_.pop_front();
  if (points_.size() < window_ + 1) return false;
  // The window's cycles per warp instruction, and their spread (the smallest kept, cut or not).
  double lo = INFINITY, hi = 0.0, sum = 0.0;
  for (size_t k = 1; k < points_.size(); ++k) {
    const uint64_t c = points_[k].cycle - points_[k - 1].cycle, w = points_[k].instrs - points_[k - 1].instrs;
    if (w == 0) return false;
    const double cpi = double(c) / double(w);
    lo = std::min(lo, cpi);
    hi = std::max(hi, cpi);
    sum += cpi;
  }
  const double mean = sum / double(window_);
  if (unstarted < sms_) return false;
  const double spread = (hi - lo) / mean;
  if (windows_ == 0 || spread < spread_) spread_ = spread;
  ++windows_;
  if (double(blocks_ - std::min(blocks_, unstarted)) < min_share_ * double(blocks_)) return false;
  // The L2 steady over the window: full (evicting), or barely used.
  const SampledMemory &first = points_.front().mem, &last = points_.back().mem;
  const uint64_t allocs = last.l2_allocs - first.l2_allocs;
  const uint64_t evictions = last.l2_evictions - first.l2_evictions;
  if (2 * evictions < allocs && 100 * allocs >= l2_lines_) return false;
  // The DRAM keeping up: a backlog that grows (or drains) over the window
  // means the IPC measured is not one the memory can sustain.
  const double span = double(points_.back().cycle - points_.front().cycle);
  if (std::fabs(last.dram_backlog - first.dram_backlog) > tolerance_ * span) return false;
  if (hi - lo > tolerance_ * mean) return false;
  ipc_ = double(points_.back().instrs - points_.front().instrs) / span;
  cut_ = true;
  return true;
}

bool BlockSampler::admit(double deviation) {
  if (!cut_) return false;
  deviation_ = deviation;
  if (deviation <= block_tolerance_) return true;
  cut_ = false;
  ipc_ = 0.0;
  ++refused_;
  relearn_ = true;
  return false;
}

uint64_t BlockSampler::extrapolate(uint64_t drain_end, uint64_t skipped_instrs) const {
  if (!cut_ || ipc_ <= 0.0) return drain_end;
  return drain_end + static_cast<uint64_t>(std::llround(double(skipped_instrs) / ipc_));
}

uint64_t BlockSampler::extrapolateBlocks(uint64_t drain_end, uint64_t skipped_blocks, double instrs_per_block) const {
  if (!cut_ || ipc_ <= 0.0) return drain_end;
  return drain_end + static_cast<uint64_t>(std::llround(double(skipped_blocks) * instrs_per_block / ipc_));
}

}  // namespace rfsim::gpu
