// A sectored, set-associative cache with miss status holding registers, for
// the L1 data cache and the L2 slices. It models tags, sector states, LRU and
// MSHRs only (no data: the functional model holds the values), and is
// cycle-agnostic: the caller passes `now` and does the latencies.
//
// Follows GPGPU-Sim's gpu-cache.h/.cc: tag_array (probe: an invalid way
// first, else the least recently used way not waiting for a fill; every way
// waiting -> reservation failure), sector_cache_block (per-sector
// valid/reserved/modified state, so a tag hit on an absent sector is a
// "sector miss") and mshr_table (one entry per line, a bounded number of
// requests merged into it; a full table or a full entry is a reservation
// failure). Geometry after Jia et al. 2018, "Dissecting the NVIDIA Volta GPU
// Architecture via Microbenchmarking": 128-byte lines of four 32-byte
// sectors, LRU replacement.
//
// Policies:
//  * Loads allocate on miss (GPGPU-Sim's ON_MISS): the line is claimed and a
//    victim evicted when the miss is taken, the missing sectors are marked
//    reserved until fill() brings them.
//  * WriteThrough_NoAllocate is Volta's L1 policy for global stores,
//    "write-evict" (GPGPU-Sim wr_hit_global_we_local_wb): a store hit
//    invalidates the sectors it writes, a miss allocates nothing, and either
//    way the write goes on to the next level (AccessResult::forward_write).
//  * WriteBack_Allocate is for local (spill) stores in L1 and for L2: the
//    store marks its sectors valid and dirty, allocating the line (and
//    evicting a victim) on a miss. Stores come as sector masks, so they are
//    taken to write whole sectors and never fetch (as GPGPU-Sim's
//    lazy_fetch_on_read does for a fully written sector); an evicted dirty
//    line comes back in AccessResult for the caller to write back.
//  * Atomics are the caller's to route (Volta performs them at L2): pass one
//    to L1 as a write-evict store, to L2 as a load.
//
// Deterministic, and allocation-free after construction: lines, MSHRs and
// their merged-request slots are pre-sized.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "mem/coalescer.h"  // AccessKind
#include "mem/ipoly.h"

namespace rfsim::mem {

enum class WritePolicy : uint8_t {
  WriteThrough_NoAllocate,  // write-evict (Volta L1, global)
  WriteBack_Allocate,       // Volta L1 local, L2
};

enum class Outcome : uint8_t {
  Hit,          // every requested sector present
  HitReserved,  // the missing sectors are already on their way: merged into the line's MSHR
  Miss,         // some sector absent; a load sends AccessResult::fetch_mask to the next level
  MshrFull,     // reservation failure (no MSHR, MSHR merge limit, every way of the set
                // waiting for a fill): nothing changed, retry later
};
const char* outcomeName(Outcome o);  // "hit", "hit_reserved", "miss", "mshr_full"

struct CacheParams {
  std::string name = "cache";  // in error messages: "L1D", "L2 slice 3"
  uint64_t size_bytes = 32 * 1024;
  uint32_t assoc = 4;
  uint32_t line_bytes = 128;
  uint32_t sector_bytes = 32;
  uint32_t mshr_entries = 32;
  uint32_t mshr_max_merge = 8;  // requests one entry holds, the first included
  // The set index: false, the line number's low bits (GPGPU-Sim's LINEAR
  // set function); true, the line number modulo an irreducible polynomial
  // over GF(2) (mem/ipoly.h; GPGPU-Sim's HASH_IPOLY_FUNCTION, 'P' in a
  // cache configuration), so that lines a power-of-two stride apart spread
  // over the sets.
  bool hashed_sets = false;
};

struct AccessResult {
  Outcome outcome = Outcome::Hit;
  // Load Miss: the sectors the caller must request from the next level and
  // later fill(). Zero for every other outcome and for stores.
  uint8_t fetch_mask = 0;
  // Write-evict store: the write goes on to the next level.
  bool forward_write = false;
  // Dirty sectors leaving the cache (a victim, or dirty sectors a
  // write-evict store invalidated): the caller writes them back.
  bool writeback = false;
  uint64_t writeback_line = 0;  // byte address of the line
  uint8_t writeback_mask = 0;   // its dirty sectors
};

struct KindCounters {
  uint64_t accesses = 0, hits = 0, hit_reserved = 0, misses = 0, mshr_full = 0;
};

// Every access() counts once in accesses and once in exactly one of hits,
// hit_reserved, misses, mshr_full (a retried access counts again).
struct CacheStats {
  uint64_t accesses = 0, hits = 0, hit_reserved = 0, misses = 0, mshr_full = 0;
  uint64_t sector_misses = 0;     // misses whose line was present (subset of misses)
  uint64_t evictions = 0;         // valid lines replaced
  uint64_t dirty_writebacks = 0;  // AccessResults with writeback set
  uint64_t writes_forwarded = 0;  // write-evict stores sent on
  uint64_t fills = 0;
  std::array<KindCounters, kNumAccessKinds> by_kind{};  // indexed by AccessKind
};

class SectorCache {
 public:
  // Throws rfsim::Error naming the parameter when the geometry is not
  // buildable: line_bytes or sector_bytes not a power of two, a sector not
  // dividing the line or more than 8 per line, assoc or MSHR counts zero,
  // size_bytes not a multiple of assoc x line_bytes, or a set count that is
  // not a power of two.
  explicit SectorCache(const CacheParams& p);

  // `line_addr`: a byte address in the line (the offset is ignored);
  // `sector_mask`: the sectors the request touches (nonzero, within the
  // line); `tag`: the caller's name for the request, handed back by fill()
  // when a load that missed or merged completes; `kind`: for statistics.
  AccessResult access(uint64_t line_addr, uint8_t sector_mask, bool write, WritePolicy wp, AccessKind kind,
                      uint64_t tag, uint64_t now);

  // The next level returned `sector_mask` of the line: the sectors become
  // valid, and the tags of the requests waiting on the line's MSHR that
  // need nothing more are returned, in the order they arrived; the MSHR is
  // freed when no sector is pending. The vector is reused by the next
  // fill(). Throws rfsim::Error if a filled sector was not pending.
  const std::vector<uint64_t>& fill(uint64_t line_addr, uint8_t sector_mask, uint64_t now);

  // Sector states of a line (0 when the line is absent).
  uint8_t validSectors(uint64_t line_addr) const;
  uint8_t dirtySectors(uint64_t line_addr) const;
  uint8_t pendingSectors(uint64_t line_addr) const;

  uint32_t mshrInUse() const { return static_cast<uint32_t>(p_.mshr_entries - free_mshr_.size()); }
  uint32_t sets() const { return sets_; }
  uint32_t sectorsPerLine() const { return p_.line_bytes / p_.sector_bytes; }
  const CacheParams& params() const { return p_; }
  const CacheStats& stats() const { return stats_; }

 private:
  struct Line {
    uint64_t line_no = 0;   // line address / line_bytes
    uint64_t last_use = 0;  // LRU: the `now` of the last access, then
    uint64_t seq = 0;       // the order of accesses within a cycle
    uint8_t valid = 0, dirty = 0, reserved = 0;
    int32_t mshr = -1;  // entry while some sector is reserved
    bool present() const { return (valid | reserved) != 0; }
  };
  struct Waiter {
    uint64_t tag;
    uint8_t needs;  // the reserved sectors it waits for
  };
  struct Mshr {
    uint32_t line = 0;  // index into lines_
    uint32_t nwait = 0;
  };

  Line* find(uint64_t line_no);
  const Line* find(uint64_t line_no) const;
  Line* victim(uint64_t line_no);  // nullptr: every way waits for a fill
  void touch(Line& l, uint64_t now);
  void evict(Line& l, AccessResult& r);
  void checkMask(uint8_t sector_mask, const char* what) const;
  AccessResult count(AccessResult r, AccessKind kind);

  size_t setBase(uint64_t line_no) const {
    return static_cast<size_t>(p_.hashed_sets ? set_hash_(line_no) : line_no & (sets_ - 1)) * p_.assoc;
  }

  CacheParams p_;
  uint32_t sets_ = 0, line_shift_ = 0;
  Ipoly set_hash_;  // hashed_sets: modulo a polynomial of degree log2(sets_)
  uint8_t full_mask_ = 0;
  std::vector<Line> lines_;         // sets_ x assoc, set-major
  // Per way of lines_: its line_no + 1 while it is present, else 0. find()
  // and victim() scan these 8-byte keys, not the 32-byte lines (the V100's
  // L1D has up to 256 ways a set; the line scan was half an access's host
  // instructions). A line stops being present only by its reset to Line{}.
  std::vector<uint64_t> key_;
  void setKey(const Line& l, uint64_t key) { key_[static_cast<size_t>(&l - lines_.data())] = key; }
  std::vector<Mshr> mshr_;          // mshr_entries
  std::vector<Waiter> waiters_;     // mshr_entries x mshr_max_merge
  std::vector<uint32_t> free_mshr_;  // free entries, a stack (0 first at start)
  std::vector<uint64_t> done_;      // fill()'s result, reserved to mshr_max_merge
  uint64_t seq_ = 0;
  CacheStats stats_;
};

}  // namespace rfsim::mem
