// The SM's instruction memory (fetch_stage.h's path to the code): an L0
// I-cache per sub-core in front of the SM's L1I (icache.h), an L1I miss
// served at the fixed pipeline.l1i_miss_latency (an L2 hit), and the
// instruction prefetcher (l1i.prefetch). The first level is the L0 when
// l1i.l0_size_kb > 0, else the L1I.
//
// Code layout: instructions are 16 bytes (Volta's 128-bit instruction word,
// Jia et al. 2018 chapter 2), or with l1i.encoding bits64_ctrl3 (Maxwell,
// Pascal) 8 bytes with an 8-byte control word before every three, so that
// instruction i of a function lies at byte 32 * (i / 3) + 8 + 8 * (i % 3).
// The program's functions lie one after the other in index order, each
// starting on a line boundary, so that a straight-line stream falls through
// into the next function's lines as in a real code segment.
//
// Latency of a fill (the cycle its data reaches the I-buffer), per line:
//   first-level hit: max(now + its latency, the line's arrival);
//   L0 miss, L1I hit: max(now + l1i.latency, the line's arrival);
//   L1I miss: now + pipeline.l1i_miss_latency (the line enters both levels
//   in flight; a later request for it waits for the same arrival).
// A fill's lines are looked up together; the fill is ready when the last
// arrives.
//
// Prefetch (the first level's): next_line fetches the prefetch_degree lines
// after a line a demand fetch found absent from the first level; stream
// does the same also after a demand fetch's first use of a prefetched line
// (tagged prefetch: Smith, "Cache Memories", ACM Computing Surveys 1982), so a warp
// running straight-line code keeps prefetch_degree lines ahead. A prefetch
// of a line the first level holds does nothing; otherwise it looks up the
// L1I (an L2 request on a miss) and puts the line in the first level in
// flight. Prefetches take no fetch bandwidth and are not bounded by MSHRs.
#pragma once

#include <cstdint>
#include <vector>

#include "config/gpu_config.h"
#include "sm/core/icache.h"
#include "sm/core/sm_stats.h"

namespace rfsim::sm {

class IFetchPath {
 public:
  // `func_instrs`: the instructions of each function, by function index.
  IFetchPath(const config::GpuConfig& cfg, FetchStats& stats, const std::vector<uint32_t>& func_instrs);

  // A fill of instructions [pc0, pc0 + n) of function `fn` by a warp of
  // sub-core `sub`, started at `now`: the cycle it arrives.
  uint64_t fetch(uint32_t sub, uint32_t fn, uint32_t pc0, uint32_t n, uint64_t now);

  // The latency of a first-level hit (a fill that waits no longer did not
  // stall on the I-cache).
  uint64_t hitLatency() const { return l0_.empty() ? l1_latency_ : l0_latency_; }
  // The line holding instruction `pc` of function `fn`.
  uint64_t lineOf(uint32_t fn, uint32_t pc) const { return func_line_[fn] + byteOf(pc) / line_bytes_; }
  // Instruction `pc`'s first byte from its function's start, and the bytes
  // of a function of `n` instructions (l1i.encoding).
  uint64_t byteOf(uint32_t pc) const {
    return ctrl3_ ? uint64_t{pc / 3} * 32 + 8 + uint64_t{pc % 3} * 8 : uint64_t{pc} * 16;
  }
  uint64_t bytesOf(uint32_t n) const { return ctrl3_ ? (uint64_t{n} + 2) / 3 * 32 : uint64_t{n} * 16; }
  uint32_t subCores() const { return sub_cores_; }

 private:
  enum class Level : uint8_t { Hit, Merge, Miss };
  // The first level of sub-core `sub`: its L0, or the L1I.
  ICache& first(uint32_t sub) { return l0_.empty() ? l1_ : l0_[sub]; }
  // Line `line` from the L1I (for an L0 miss or a prefetch): its arrival;
  // `lvl` says how the L1I had it.
  uint64_t fromL1(uint64_t line, uint64_t now, Level& lvl);
  void prefetch(uint32_t sub, uint64_t after, uint64_t now);

  uint32_t sub_cores_, line_bytes_;
  bool ctrl3_;  // l1i.encoding bits64_ctrl3
  uint64_t l0_latency_, l1_latency_, miss_latency_;
  config::IPrefetch policy_;
  uint32_t degree_;
  std::vector<uint64_t> func_line_;  // per function: its first line
  uint64_t end_line_ = 0;            // one past the code's last line
  std::vector<ICache> l0_;           // per sub-core; empty: no L0
  ICache l1_;
  FetchStats& stats_;
};

}  // namespace rfsim::sm
