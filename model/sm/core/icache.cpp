// The instruction cache's tags (icache.h).
#include "sm/core/icache.h"

#include <fmt/format.h>

#include "common/error.h"

namespace rfsim::sm {

ICache::ICache(uint32_t lines, uint32_t assoc) : sets_(assoc ? lines / assoc : 0), assoc_(assoc) {
  if (assoc == 0 || lines == 0 || lines % assoc != 0 || (sets_ & (sets_ - 1)) != 0)
    throw Error(fmt::format("ICache: {} lines of {} ways is not a power-of-two number of sets", lines, assoc));
  ways_.resize(size_t(sets_) * assoc_);
}

ICache::Way* ICache::find(uint64_t line) {
  Way* set = &ways_[size_t(line & (sets_ - 1)) * assoc_];
  for (uint32_t w = 0; w < assoc_; ++w)
    if (set[w].line == line) return &set[w];
  return nullptr;
}

const ICache::Way* ICache::find(uint64_t line) const { return const_cast<ICache*>(this)->find(line); }

uint64_t ICache::access(uint64_t line, bool& was_prefetched) {
  was_prefetched = false;
  Way* w = find(line);
  if (!w) return kAbsent;
  w->last_use = ++use_;
  was_prefetched = w->prefetched;
  w->prefetched = false;
  return w->ready_at;
}

bool ICache::contains(uint64_t line) const { return find(line) != nullptr; }

bool ICache::insert(uint64_t line, uint64_t ready_at, uint64_t now, bool prefetched) {
  Way* set = &ways_[size_t(line & (sets_ - 1)) * assoc_];
  Way* victim = nullptr;
  Way* any = &set[0];  // the least recently used way, arrived or not
  for (uint32_t i = 0; i < assoc_; ++i) {
    Way& w = set[i];
    if (w.line == kAbsent) {
      victim = &w;
      break;
    }
    if (w.last_use < any->last_use) any = &w;
    if (w.ready_at <= now && (!victim || w.last_use < victim->last_use)) victim = &w;
  }
  if (!victim) victim = any;
  const bool evicted = victim->line != kAbsent;
  *victim = Way{line, ready_at, ++use_, prefetched};
  return evicted;
}

}  // namespace rfsim::sm
