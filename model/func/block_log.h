// What one thread block does to global memory while it runs beside other
// blocks of its launch (parallel_blocks.cpp): the ranges it read, the ranges
// it wrote, and, while it runs speculatively, the bytes it stored and the
// reductions it made, kept here instead of in memory until the block commits
// in block order.
//
// Speculative: stores land in an overlay of 8-byte words that the block's
// own loads read first; atomics whose old value is not read are kept as
// operations and applied at commit in the order the block made them;
// anything the log cannot keep exact (an atomic whose old value is read, a
// load or store that meets the block's own pending reductions) ends the
// block with NeedsSerial, and it runs again on its own. Direct: the block
// writes memory itself (no block before it is still running) and the log
// only notes the ranges it wrote, against which later blocks are checked.
#pragma once

#include <cstdint>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

#include "func/memory.h"
#include "ptx/ir.h"

namespace rfsim::func {

// Half-open byte ranges [lo, hi), merged.
class Ranges {
 public:
  // Appended, joined to the last one when they touch; merged when many.
  void add(uint64_t lo, uint64_t hi) {
    if (!v_.empty() && lo <= v_.back().second && hi >= v_.back().first) {
      v_.back().first = std::min(v_.back().first, lo);
      v_.back().second = std::max(v_.back().second, hi);
      return;
    }
    v_.emplace_back(lo, hi);
    if (v_.size() >= limit_) merge(), limit_ = std::max<size_t>(1024, 2 * v_.size());
  }
  // Sorted and disjoint after this.
  void merge();
  // Both sorted (merge()): whether any range of one meets one of the other.
  bool meets(const Ranges& o) const;
  void clear() { v_.clear(), limit_ = 1024; }
  bool empty() const { return v_.empty(); }
  size_t size() const { return v_.size(); }
  const std::vector<std::pair<uint64_t, uint64_t>>& ranges() const { return v_; }

 private:
  std::vector<std::pair<uint64_t, uint64_t>> v_;
  size_t limit_ = 1024;
};

// Half-open byte ranges kept merged as they come, for the question "does
// [lo, hi) meet any of them" while the block runs.
class RangeSet {
 public:
  void add(uint64_t lo, uint64_t hi);
  bool meets(uint64_t lo, uint64_t hi) const;
  bool empty() const { return m_.empty(); }
  void clear() { m_.clear(); }
  void into(Ranges& out) const {
    for (const auto& [lo, hi] : m_) out.add(lo, hi);
  }

 private:
  std::map<uint64_t, uint64_t> m_;  // lo -> hi, disjoint, not touching
};

// Thrown by the log when it cannot keep a block's effect exact: the block
// is run again, alone.
struct NeedsSerial {};

class BlockLog {
 public:
  enum class Mode : uint8_t { Speculative, Direct };

  void reset(Mode m);
  Mode mode() const { return mode_; }
  bool speculative() const { return mode_ == Mode::Speculative; }

  // A warp's global read of [lo, hi) (speculative only).
  void noteRead(uint64_t lo, uint64_t hi) { reads_.add(lo, hi); }
  // A warp's global write or reduction somewhere in [lo, hi).
  void noteWrite(uint64_t lo, uint64_t hi) {
    if (hi <= lo) return;
    if (mode_ == Mode::Direct) direct_writes_.add(lo, hi);
    else writes_.add(lo, hi);
  }
  // Whether the block's own stores or reductions reach into [lo, hi).
  bool ownWrites(uint64_t lo, uint64_t hi) const { return !writes_.empty() && writes_.meets(lo, hi); }

  // Speculative: the n bytes at `addr` as the block sees them, `mem` being
  // what memory holds there (written into out).
  void overlay(uint64_t addr, const uint8_t* mem, uint8_t* out, unsigned n) const;
  // Speculative: the block stores n bytes at addr (n <= 32).
  void store(uint64_t addr, const uint8_t* src, unsigned n);
  // Speculative: an atomic whose old value the block does not read.
  void reduce(uint64_t addr, unsigned bytes, ptx::AtomOp op, ptx::Type type, uint64_t b, uint64_t c);

  // After the block ran: its ranges sorted and merged.
  void seal();
  const Ranges& reads() const { return reads_; }
  const Ranges& writes() const { return sealed_writes_; }
  // Writes the block's stores, then its reductions in order, into memory.
  void apply(GlobalMemory& mem, TranslateCache& tc) const;

 private:
  struct Word {
    uint64_t data = 0;
    uint8_t mask = 0;  // bytes of data the block stored
  };
  struct Reduction {
    uint64_t addr, b, c;
    ptx::AtomOp op;
    ptx::Type type;
    uint8_t bytes;
  };
  Mode mode_ = Mode::Speculative;
  Ranges reads_, direct_writes_;
  RangeSet writes_, reduced_;  // speculative: all own writes; the bytes under pending reductions
  std::unordered_map<uint64_t, Word> words_;  // by address / 8
  std::vector<Reduction> reductions_;
  Ranges sealed_writes_;
};

}  // namespace rfsim::func
