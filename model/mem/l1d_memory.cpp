#include "mem/l1d_memory.h"

#include <algorithm>

namespace rfsim::mem {

namespace {

CacheParams l1dParams(const config::GpuConfig& cfg) {
  CacheParams p;
  p.name = "L1D";
  // A configuration without an L1D (size 0) keeps one line: every access
  // still goes through the same path, and the stats show the misses.
  p.size_bytes = std::max<uint64_t>(uint64_t(cfg.l1d.size_kb) * 1024, uint64_t(cfg.l1d.line_bytes) * cfg.l1d.assoc);
  p.assoc = cfg.l1d.assoc;
  p.line_bytes = cfg.l1d.line_bytes;
  p.sector_bytes = 32;  // Volta: 32-byte sectors (Jia et al. 2018)
  // GPGPU-Sim SM7_QV100 gpgpu_cache:dl1 "A:512:8": 512 MSHR entries, 8
  // requests merged per entry.
  p.mshr_entries = 512;
  p.mshr_max_merge = 8;
  return p;
}

}  // namespace

L1dMemory::L1dMemory(const config::GpuConfig& cfg, uint64_t next_latency)
    : cfg_(cfg),
      next_latency_(next_latency),
      coalescer_(CoalescerParams{cfg.l1d.line_bytes, 32}),
      l1d_(l1dParams(cfg)) {}

double L1dMemory::localShare() const {
  const CacheStats& s = l1d_.stats();
  const uint64_t local = s.by_kind[size_t(AccessKind::LocalLoad)].accesses +
                         s.by_kind[size_t(AccessKind::LocalStore)].accesses;
  return s.accesses ? double(local) / double(s.accesses) : 0.0;
}

void L1dMemory::drainFills(uint64_t now) {
  while (!fills_.empty() && fills_.top().at <= now) {
    const Fill f = fills_.top();
    fills_.pop();
    l1d_.fill(f.line, f.sectors, now);
    line_ready_.erase(std::remove_if(line_ready_.begin(), line_ready_.end(),
                                     [&](const auto& e) { return e.first == f.line && e.second <= now; }),
                      line_ready_.end());
  }
}

uint64_t L1dMemory::accessLatency(const func::MemAccess& a, uint64_t now) {
  drainFills(now);
  coalescer_.coalesce(a, reqs_);
  const uint64_t hit = cfg_.l1d.latency;
  uint64_t latest = hit;
  for (size_t k = 0; k < reqs_.size(); ++k) {
    const LineRequest& r = reqs_[k];
    ++requests_[size_t(r.kind)];
    const uint64_t start = now + k;  // one line request per cycle
    const bool local = r.kind == AccessKind::LocalLoad || r.kind == AccessKind::LocalStore;
    const WritePolicy wp = local ? WritePolicy::WriteBack_Allocate : WritePolicy::WriteThrough_NoAllocate;
    // Atomics are performed at the L2: a write-evict store in the L1D.
    const bool write = r.write || r.atomic;
    AccessResult res = l1d_.access(r.line_addr, r.sector_mask, write, wp, r.kind, ++tag_, start);
    uint64_t done = start + hit;
    if (res.outcome == Outcome::MshrFull) {
      // Wait for the earliest pending fill, then miss.
      const uint64_t t = fills_.empty() ? start : std::max(start, fills_.top().at);
      drainFills(t);
      res = l1d_.access(r.line_addr, r.sector_mask, write, wp, r.kind, ++tag_, t);
      done = t + hit;
      // Still no room (the line's merge limit): bypass the L1D.
      if (res.outcome == Outcome::MshrFull && !write) done += next_latency_;
    }
    if (r.atomic) done += next_latency_;  // the value comes back from the L2
    if (res.outcome == Outcome::Miss && res.fetch_mask) {
      const uint64_t at = done + next_latency_;
      fills_.push(Fill{at, r.line_addr, res.fetch_mask});
      line_ready_.emplace_back(r.line_addr, at);
      done = at;
    } else if (res.outcome == Outcome::HitReserved) {
      uint64_t at = done;
      for (const auto& [line, t] : line_ready_)
        if (line == r.line_addr) at = std::max(at, t);
      done = at;
    }
    latest = std::max(latest, done - now);
  }
  return latest;
}

}  // namespace rfsim::mem
