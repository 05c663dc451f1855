#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "common/error.h"
#include "mem/cache.h"

using namespace rfsim::mem;

namespace {

// Two sets of two ways of 128 B lines: lines 0x000, 0x100, 0x200 ... share
// set 0; 0x080, 0x180 ... set 1.
CacheParams small(uint32_t mshrs = 4, uint32_t merge = 4) {
  CacheParams p;
  p.name = "L1D";
  p.size_bytes = 2 * 2 * 128;
  p.assoc = 2;
  p.mshr_entries = mshrs;
  p.mshr_max_merge = merge;
  return p;
}

constexpr uint64_t A = 0x000, B = 0x100, C = 0x200, D = 0x300, S1 = 0x080;
constexpr auto WT = WritePolicy::WriteThrough_NoAllocate;
constexpr auto WB = WritePolicy::WriteBack_Allocate;

struct Driver {
  SectorCache c;
  uint64_t now = 0, tag = 0;
  explicit Driver(const CacheParams& p) : c(p) {}
  AccessResult load(uint64_t line, uint8_t mask = 0xf, AccessKind k = AccessKind::GlobalLoad) {
    return c.access(line, mask, false, WB, k, ++tag, ++now);
  }
  AccessResult store(uint64_t line, uint8_t mask, WritePolicy wp, AccessKind k = AccessKind::GlobalStore) {
    return c.access(line, mask, true, wp, k, ++tag, ++now);
  }
  // A load that misses, then its fill: the outcome of the load.
  Outcome loadFilled(uint64_t line, uint8_t mask = 0xf) {
    const AccessResult r = load(line, mask);
    if (r.outcome == Outcome::Miss) c.fill(line, r.fetch_mask, ++now);
    return r.outcome;
  }
  std::vector<uint64_t> fill(uint64_t line, uint8_t mask) { return c.fill(line, mask, ++now); }
};

}  // namespace

TEST_CASE("cache: hits, misses and LRU replacement in a 2-way set", "[mem]") {
  Driver d(small());
  CHECK(d.c.sets() == 2);
  CHECK(d.loadFilled(A) == Outcome::Miss);
  CHECK(d.loadFilled(B) == Outcome::Miss);
  CHECK(d.loadFilled(S1) == Outcome::Miss);  // other set: evicts nothing
  CHECK(d.loadFilled(A) == Outcome::Hit);    // A is now the more recent of set 0
  CHECK(d.c.stats().evictions == 0);
  CHECK(d.loadFilled(C) == Outcome::Miss);   // evicts B, the least recently used
  CHECK(d.c.stats().evictions == 1);
  CHECK(d.c.validSectors(B) == 0);
  CHECK(d.c.validSectors(A) == 0xf);
  CHECK(d.loadFilled(B) == Outcome::Miss);   // evicts A (C was used after it)
  CHECK(d.loadFilled(C) == Outcome::Hit);
  CHECK(d.loadFilled(A) == Outcome::Miss);   // evicts B
  CHECK(d.loadFilled(S1) == Outcome::Hit);
  const CacheStats& s = d.c.stats();
  CHECK(s.accesses == 9);
  CHECK(s.hits == 3);
  CHECK(s.misses == 6);
  CHECK(s.evictions == 3);
  CHECK(s.dirty_writebacks == 0);
  CHECK(s.fills == 6);
  CHECK(s.by_kind[size_t(AccessKind::GlobalLoad)].accesses == 9);
  CHECK(s.by_kind[size_t(AccessKind::GlobalLoad)].hits == 3);
  CHECK(d.c.mshrInUse() == 0);
}

TEST_CASE("cache: an absent sector of a present line is a sector miss", "[mem]") {
  Driver d(small());
  CHECK(d.loadFilled(A, 0x1) == Outcome::Miss);
  CHECK(d.c.validSectors(A) == 0x1);
  AccessResult r = d.load(A, 0x3);
  CHECK(r.outcome == Outcome::Miss);
  CHECK(r.fetch_mask == 0x2);  // only the absent sector is fetched
  CHECK(d.c.pendingSectors(A) == 0x2);
  CHECK(d.fill(A, 0x2) == std::vector<uint64_t>{d.tag});
  CHECK(d.load(A, 0x3).outcome == Outcome::Hit);
  CHECK(d.c.stats().sector_misses == 1);
  CHECK(d.c.stats().misses == 2);
  CHECK(d.c.stats().evictions == 0);
}

TEST_CASE("cache: misses merge into the line's MSHR, fills return the merged tags", "[mem]") {
  Driver d(small(2, 2));
  AccessResult r = d.load(A, 0x1);  // tag 1
  CHECK(r.outcome == Outcome::Miss);
  CHECK(r.fetch_mask == 0x1);
  r = d.load(A, 0x1);  // tag 2
  CHECK(r.outcome == Outcome::HitReserved);
  CHECK(r.fetch_mask == 0);
  CHECK(d.load(A, 0x1).outcome == Outcome::MshrFull);  // tag 3: the entry holds 2
  CHECK(d.c.mshrInUse() == 1);
  CHECK(d.load(S1).outcome == Outcome::Miss);        // tag 4: second entry
  CHECK(d.load(B).outcome == Outcome::MshrFull);     // tag 5: no entry left
  CHECK(d.c.pendingSectors(B) == 0);                 // nothing changed
  CHECK(d.fill(A, 0x1) == std::vector<uint64_t>{1, 2});
  CHECK(d.c.mshrInUse() == 1);
  CHECK(d.load(B).outcome == Outcome::Miss);         // tag 6: retried, succeeds
  CHECK(d.fill(S1, 0xf) == std::vector<uint64_t>{4});
  CHECK(d.fill(B, 0xf) == std::vector<uint64_t>{6});
  CHECK(d.c.mshrInUse() == 0);
  const CacheStats& s = d.c.stats();
  CHECK(s.accesses == 6);
  CHECK(s.misses == 3);
  CHECK(s.hit_reserved == 1);
  CHECK(s.mshr_full == 2);
  CHECK(s.by_kind[size_t(AccessKind::GlobalLoad)].mshr_full == 2);
}

TEST_CASE("cache: partial fills complete each request when its sectors are in", "[mem]") {
  Driver d(small());
  CHECK(d.load(A, 0x3).outcome == Outcome::Miss);         // tag 1 waits for 0x3
  CHECK(d.load(A, 0x1).outcome == Outcome::HitReserved);  // tag 2 waits for 0x1
  AccessResult r = d.load(A, 0x6);                        // tag 3: 0x2 pending, 0x4 fetched
  CHECK(r.outcome == Outcome::Miss);
  CHECK(r.fetch_mask == 0x4);
  CHECK(d.c.mshrInUse() == 1);  // one entry per line
  CHECK(d.fill(A, 0x1) == std::vector<uint64_t>{2});
  CHECK(d.fill(A, 0x4).empty());  // tag 3 still waits for sector 1
  CHECK(d.c.mshrInUse() == 1);
  CHECK(d.fill(A, 0x2) == std::vector<uint64_t>{1, 3});
  CHECK(d.c.mshrInUse() == 0);
  CHECK(d.c.validSectors(A) == 0x7);
  CHECK_THROWS_WITH(d.fill(A, 0x8), Catch::Contains("no miss is waiting"));
  CHECK_THROWS_AS(d.fill(D, 0x1), rfsim::Error);
}

TEST_CASE("cache: a set whose ways all wait for fills refuses a new line", "[mem]") {
  Driver d(small(8, 4));
  CHECK(d.load(A).outcome == Outcome::Miss);
  CHECK(d.load(B).outcome == Outcome::Miss);
  CHECK(d.load(C).outcome == Outcome::MshrFull);   // both ways of set 0 reserved
  CHECK(d.store(C, 0x1, WB).outcome == Outcome::MshrFull);
  CHECK(d.load(S1).outcome == Outcome::Miss);      // set 1 is free
  CHECK(d.c.mshrInUse() == 3);
  d.fill(A, 0xf);
  CHECK(d.load(C).outcome == Outcome::Miss);       // A is replaceable now
  CHECK(d.c.validSectors(A) == 0);
  CHECK(d.c.stats().evictions == 1);
}

TEST_CASE("cache: write-evict stores invalidate their sectors and allocate nothing", "[mem]") {
  Driver d(small());
  CHECK(d.loadFilled(A) == Outcome::Miss);
  AccessResult r = d.store(A, 0x1, WT);
  CHECK(r.outcome == Outcome::Hit);
  CHECK(r.forward_write);
  CHECK(r.fetch_mask == 0);
  CHECK_FALSE(r.writeback);
  CHECK(d.c.validSectors(A) == 0xe);
  r = d.load(A, 0x1);
  CHECK(r.outcome == Outcome::Miss);  // the written sector was evicted
  CHECK(r.fetch_mask == 0x1);
  d.fill(A, 0x1);
  r = d.store(D, 0x3, WT);  // absent line: a miss that allocates nothing
  CHECK(r.outcome == Outcome::Miss);
  CHECK(r.forward_write);
  CHECK(d.c.validSectors(D) == 0);
  CHECK(d.c.mshrInUse() == 0);
  CHECK(d.loadFilled(B) == Outcome::Miss);            // set 0 is full: A and B
  CHECK(d.store(A, 0xf, WT).outcome == Outcome::Hit);  // the whole of A leaves...
  CHECK(d.c.validSectors(A) == 0);
  CHECK(d.loadFilled(C) == Outcome::Miss);  // ...so its way is free: no eviction
  CHECK(d.c.validSectors(B) == 0xf);
  CHECK(d.c.stats().evictions == 0);
  CHECK(d.c.stats().writes_forwarded == 3);
  CHECK(d.c.stats().by_kind[size_t(AccessKind::GlobalStore)].accesses == 3);
  CHECK(d.c.stats().by_kind[size_t(AccessKind::GlobalStore)].hits == 2);
}

TEST_CASE("cache: write-back stores allocate dirty sectors, dirty victims are written back", "[mem]") {
  Driver d(small());
  const auto LS = AccessKind::LocalStore;
  AccessResult r = d.store(A, 0x3, WB, LS);
  CHECK(r.outcome == Outcome::Miss);  // allocated, whole sectors written: nothing to fetch
  CHECK(r.fetch_mask == 0);
  CHECK_FALSE(r.forward_write);
  CHECK(d.c.validSectors(A) == 0x3);
  CHECK(d.c.dirtySectors(A) == 0x3);
  CHECK(d.c.mshrInUse() == 0);
  CHECK(d.store(B, 0x1, WB, LS).outcome == Outcome::Miss);
  CHECK(d.store(B, 0x1, WB, LS).outcome == Outcome::Hit);
  CHECK(d.load(A, 0x3, AccessKind::LocalLoad).outcome == Outcome::Hit);
  r = d.load(C);  // evicts B, dirty
  CHECK(r.outcome == Outcome::Miss);
  CHECK(r.writeback);
  CHECK(r.writeback_line == B);
  CHECK(r.writeback_mask == 0x1);
  d.fill(C, 0xf);
  r = d.load(B, 0x1, AccessKind::LocalLoad);  // evicts A, dirty
  CHECK(r.writeback);
  CHECK(r.writeback_line == A);
  CHECK(r.writeback_mask == 0x3);
  d.fill(B, 0x1);
  CHECK(d.c.dirtySectors(B) == 0);  // refetched clean
  r = d.load(A, 0x1);               // evicts C, clean
  CHECK_FALSE(r.writeback);
  const CacheStats& s = d.c.stats();
  CHECK(s.evictions == 3);
  CHECK(s.dirty_writebacks == 2);
  CHECK(s.by_kind[size_t(LS)].accesses == 3);
  CHECK(s.by_kind[size_t(LS)].misses == 2);
  CHECK(s.by_kind[size_t(AccessKind::LocalLoad)].hits == 1);
  CHECK(s.by_kind[size_t(AccessKind::LocalLoad)].misses == 1);
}

TEST_CASE("cache: a write-evict store over dirty sectors hands them back", "[mem]") {
  Driver d(small());
  d.store(A, 0x3, WB, AccessKind::LocalStore);
  const AccessResult r = d.store(A, 0x6, WT);
  CHECK(r.forward_write);
  CHECK(r.outcome == Outcome::Miss);  // sector 2 was absent
  CHECK(r.writeback);
  CHECK(r.writeback_mask == 0x2);
  CHECK(d.c.validSectors(A) == 0x1);
  CHECK(d.c.dirtySectors(A) == 0x1);
}

TEST_CASE("cache: bad parameters name the parameter", "[mem]") {
  CacheParams p = small();
  p.size_bytes = 3 * 2 * 128;
  CHECK_THROWS_WITH(SectorCache(p), Catch::Contains("L1D") && Catch::Contains("3 sets, not a power of two"));
  p = small();
  p.size_bytes = 1000;
  CHECK_THROWS_WITH(SectorCache(p), Catch::Contains("size_bytes 1000"));
  p = small();
  p.sector_bytes = 48;
  CHECK_THROWS_WITH(SectorCache(p), Catch::Contains("sector_bytes 48"));
  p = small();
  p.sector_bytes = 256;
  CHECK_THROWS_WITH(SectorCache(p), Catch::Contains("does not divide line_bytes"));
  p = small();
  p.line_bytes = 512;
  p.size_bytes = 4096;
  CHECK_THROWS_WITH(SectorCache(p), Catch::Contains("16 sectors per line"));
  p = small();
  p.assoc = 0;
  CHECK_THROWS_WITH(SectorCache(p), Catch::Contains("assoc"));
  p = small();
  p.mshr_entries = 0;
  CHECK_THROWS_WITH(SectorCache(p), Catch::Contains("mshr_entries"));
  p = small();
  p.mshr_max_merge = 0;
  CHECK_THROWS_WITH(SectorCache(p), Catch::Contains("mshr_max_merge"));
  SectorCache c(small());
  CHECK_THROWS_WITH(c.access(A, 0, false, WB, AccessKind::GlobalLoad, 1, 1), Catch::Contains("sector mask"));
  CHECK_THROWS_AS(c.access(A, 0x10, false, WB, AccessKind::GlobalLoad, 1, 1), rfsim::Error);
  // A Volta-like L1D: 32 KB, 4 ways -> 64 sets.
  CacheParams v;
  v.size_bytes = 32 * 1024;
  v.assoc = 4;
  CHECK(SectorCache(v).sets() == 64);
  CHECK(std::string(outcomeName(Outcome::HitReserved)) == "hit_reserved");
}

// l2.set_index: ipoly. 32 sets of 2 ways; lines a power-of-two stride of
// 4096 lines apart (the same stack slot of warps whose local regions lie a
// power of two apart) all share set 0 under the linear index and thrash it,
// and spread over the sets under the hashed one.
TEST_CASE("cache: a hashed set index spreads a power-of-two stride over the sets", "[mem][cache]") {
  CacheParams p;
  p.name = "L2 slice 0";
  p.size_bytes = 32 * 2 * 128;
  p.assoc = 2;
  p.mshr_entries = 64;
  constexpr uint64_t kStride = 4096 * 128;
  for (const bool hashed : {false, true}) {
    p.hashed_sets = hashed;
    Driver d(p);
    for (uint64_t i = 0; i < 16; ++i) REQUIRE(d.loadFilled(i * kStride) == Outcome::Miss);
    uint32_t hits = 0;
    for (uint64_t i = 0; i < 16; ++i) hits += d.loadFilled(i * kStride) == Outcome::Hit;
    INFO("hashed " << hashed);
    CHECK(hits == (hashed ? 16u : 0u));  // linear: 16 lines in one 2-way set, LRU evicts each before its reuse
  }
  // Consecutive lines still take every set once (the low bits pass through
  // unchanged when the higher ones are 0), so a streaming footprint is the
  // same under either index: 64 lines fill the 32 x 2 ways exactly.
  p.hashed_sets = true;
  Driver d(p);
  for (uint64_t i = 0; i < 64; ++i) REQUIRE(d.loadFilled(i * 128) == Outcome::Miss);
  for (uint64_t i = 0; i < 64; ++i) CHECK(d.loadFilled(i * 128) == Outcome::Hit);
}

TEST_CASE("cache: a hashed set index needs a power-of-two set count", "[mem][cache]") {
  CacheParams p;
  p.size_bytes = 3 * 2 * 128;
  p.assoc = 2;
  p.hashed_sets = true;
  CHECK_THROWS_WITH(SectorCache(p), Catch::Contains("not a power of two"));
}
