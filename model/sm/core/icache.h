// An instruction cache for the fetch stage (fetch_stage.h): tags only, set-
// associative, LRU, with the cycle each line's data arrives. A line enters
// the cache when it is requested, with its arrival cycle; until then it is
// in flight, and a request that finds it so waits for that same arrival (the
// line's MSHR: concurrent misses to one line merge). Replacement takes the
// least recently used way whose line has arrived, else the least recently
// used way (a request already waiting on an evicted line keeps its arrival
// cycle). Unlike mem/cache.h's SectorCache, which the caller fills when the
// next level answers, the fetch path's latencies are fixed when a request
// is made, so the arrival is stored with the tag and no fill event exists.
#pragma once

#include <cstdint>
#include <vector>

namespace rfsim::sm {

class ICache {
 public:
  static constexpr uint64_t kAbsent = UINT64_MAX;

  // `lines` lines in sets of `assoc` ways (lines / assoc sets, a power of
  // two: the set index is the line address's low bits).
  ICache(uint32_t lines, uint32_t assoc);

  // A demand access to line `line`: the cycle its data arrives, or
  // kAbsent. A present line becomes the most recently
  // used; `was_prefetched` says whether it was brought by a prefetch and
  // not used since (the flag is cleared).
  uint64_t access(uint64_t line, bool& was_prefetched);
  // Whether line `line` is present or in flight (no LRU update).
  bool contains(uint64_t line) const;
  // Puts line `line` in the cache, arriving at `ready_at`, as the most
  // recently used; `prefetched`: brought by a prefetch. The line must be
  // absent. Returns whether a valid line was evicted.
  bool insert(uint64_t line, uint64_t ready_at, uint64_t now, bool prefetched);

  uint32_t sets() const { return sets_; }
  uint32_t assoc() const { return assoc_; }

 private:
  struct Way {
    uint64_t line = kAbsent;
    uint64_t ready_at = 0;
    uint64_t last_use = 0;  // LRU order: a counter, not a cycle
    bool prefetched = false;
  };
  Way* find(uint64_t line);
  const Way* find(uint64_t line) const;

  uint32_t sets_, assoc_;
  uint64_t use_ = 0;
  std::vector<Way> ways_;  // sets_ x assoc_, set-major
};

}  // namespace rfsim::sm
