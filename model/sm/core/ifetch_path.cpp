// The SM's instruction memory (ifetch_path.h).
#include "sm/core/ifetch_path.h"

#include <algorithm>

namespace rfsim::sm {

namespace {

uint32_t lines(uint32_t kb, uint32_t line_bytes) { return kb * 1024u / line_bytes; }

}  // namespace

IFetchPath::IFetchPath(const config::GpuConfig& cfg, FetchStats& stats, const std::vector<uint32_t>& func_instrs)
    : sub_cores_(cfg.sm.sub_cores), line_bytes_(cfg.l1i.line_bytes),
      ctrl3_(cfg.l1i.encoding == config::IEncoding::Bits64Ctrl3), l0_latency_(cfg.l1i.l0_latency),
      l1_latency_(cfg.l1i.latency), miss_latency_(cfg.pipeline.l1i_miss_latency), policy_(cfg.l1i.prefetch),
      degree_(cfg.l1i.prefetch_degree), l1_(lines(cfg.l1i.size_kb, cfg.l1i.line_bytes), cfg.l1i.assoc),
      stats_(stats) {
  if (cfg.l1i.l0_size_kb)
    l0_.assign(sub_cores_, ICache(lines(cfg.l1i.l0_size_kb, line_bytes_), cfg.l1i.l0_assoc));
  uint64_t line = 0;
  for (uint32_t n : func_instrs) {
    func_line_.push_back(line);
    line += (bytesOf(n) + line_bytes_ - 1) / line_bytes_;
  }
  end_line_ = line;
}

uint64_t IFetchPath::fromL1(uint64_t line, uint64_t now, Level& lvl) {
  bool unused = false;
  const uint64_t at = l1_.access(line, unused);
  if (at == ICache::kAbsent) {
    lvl = Level::Miss;
    const uint64_t ready = now + miss_latency_;
    if (l1_.insert(line, ready, now, false)) ++stats_.l1i_evictions;
    return ready;
  }
  lvl = at > now ? Level::Merge : Level::Hit;
  return std::max(now + l1_latency_, at);
}

uint64_t IFetchPath::fetch(uint32_t sub, uint32_t fn, uint32_t pc0, uint32_t n, uint64_t now) {
  ++stats_.fills;
  const uint64_t a = lineOf(fn, pc0), b = lineOf(fn, pc0 + n - 1);
  ICache& c = first(sub);
  const bool has_l0 = !l0_.empty();
  uint64_t ready = now;
  bool l0_miss = false;
  Level l1 = Level::Hit;  // the worst the L1I did for this fill
  for (uint64_t line = a; line <= b; ++line) {
    bool was_prefetched = false;
    const uint64_t at = c.access(line, was_prefetched);
    if (was_prefetched) ++stats_.prefetch_useful;
    bool missed = at == ICache::kAbsent;
    if (!missed) {
      const uint64_t r = std::max(now + hitLatency(), at);
      ready = std::max(ready, r);
      if (!has_l0 && at > now) l1 = std::max(l1, Level::Merge);
    } else if (has_l0) {
      l0_miss = true;
      Level lvl = Level::Hit;
      const uint64_t r = fromL1(line, now, lvl);
      l1 = std::max(l1, lvl);
      if (c.insert(line, r, now, false)) ++stats_.l0i_evictions;
      ready = std::max(ready, r);
    } else {
      Level lvl = Level::Hit;
      ready = std::max(ready, fromL1(line, now, lvl));  // inserts the line
      l1 = std::max(l1, lvl);
    }
    if (policy_ == config::IPrefetch::NextLine ? missed
        : policy_ == config::IPrefetch::Stream ? missed || was_prefetched
                                               : false)
      prefetch(sub, line, now);
  }
  if (has_l0) {
    if (l0_miss) ++stats_.l0i_misses;
    else ++stats_.l0i_hits;
  }
  if (!has_l0 || l0_miss) {
    if (l1 == Level::Miss) ++stats_.l1i_misses;
    else if (l1 == Level::Merge) ++stats_.l1i_merges;
    else ++stats_.l1i_hits;
  }
  return ready;
}

void IFetchPath::prefetch(uint32_t sub, uint64_t after, uint64_t now) {
  ICache& c = first(sub);
  for (uint64_t line = after + 1; line <= after + degree_ && line < end_line_; ++line) {
    if (c.contains(line)) continue;
    ++stats_.prefetches;
    if (l0_.empty()) {
      ++stats_.prefetch_l2;
      if (l1_.insert(line, now + miss_latency_, now, true)) ++stats_.l1i_evictions;
      continue;
    }
    Level lvl = Level::Hit;
    const uint64_t r = fromL1(line, now, lvl);
    if (lvl == Level::Miss) ++stats_.prefetch_l2;
    if (c.insert(line, r, now, true)) ++stats_.l0i_evictions;
  }
}

}  // namespace rfsim::sm
