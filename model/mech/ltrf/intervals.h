// LTRF's register-intervals (Sadrosadati et al., ASPLOS'18, section 4.1,
// Algorithms 1 and 2): single-entry regions of a function's control-flow
// graph whose registers fit the N register-file-cache slots a warp has, so
// that one prefetch of the interval's working set at its entry serves every
// instruction in it.
//
// Pass 1 grows an interval from its entry through blocks all of whose
// predecessors are already in it, and cuts a block before the instruction
// that would take the interval's register set past N; the rest of the block
// starts a new interval. A call is an interval of its own (the callee runs its
// own intervals). Loop headers start a new interval (the back edge's
// predecessor is not in it yet). Pass 2 merges an interval into the group
// that holds all its predecessors outside itself (a loop's back edge stays
// inside) when the two sets fit N together, and repeats until the count stops
// falling; each repetition flattens one level of loop nesting.
//
// The soundness fix of docs/ltrf.md: the paper's passes check only the union
// over a candidate's predecessors, so two branches that never rejoin inside
// the interval could together exceed N; here every check is against the whole
// interval's set, which is what the N slots per warp require. The released
// tool's quirks (strict < N, Pass 2 uniting over all intervals) are not
// copied: an interval may hold exactly N registers.
#pragma once

#include <cstdint>
#include <vector>

#include "ptx/ir.h"

namespace rfsim::mech::ltrf {

// A set of register ids (a machine program's 256 general registers, the
// prefetch's bit vector; or a PTX function's virtual registers).
class RegSet {
 public:
  void set(uint32_t r) {
    if (r / 64 >= w_.size()) w_.resize(r / 64 + 1, 0);
    w_[r / 64] |= uint64_t{1} << (r % 64);
  }
  bool test(uint32_t r) const { return r / 64 < w_.size() && (w_[r / 64] >> (r % 64)) & 1; }
  uint32_t count() const;
  RegSet& operator|=(const RegSet& o);
  // |a u b| without building it.
  static uint32_t unionCount(const RegSet& a, const RegSet& b);
  std::vector<uint32_t> members() const;

 private:
  std::vector<uint64_t> w_;
};

// A run of one block's instructions [begin, end).
struct Segment {
  uint32_t block = 0, begin = 0, end = 0;
};

struct Interval {
  std::vector<uint32_t> segments;  // indices into Intervals::segments; [0] is the entry
  RegSet regs;                     // the working set a prefetch at the entry fetches
  bool call = false;               // a call's own interval
};

struct Intervals {
  uint32_t n = 16;                         // registers per interval
  std::vector<Segment> segments;           // the function's blocks, cut where intervals begin
  std::vector<std::vector<uint32_t>> seg_succs, seg_preds;
  std::vector<uint32_t> interval_of;       // per segment
  std::vector<Interval> intervals;         // after pass 2
  uint32_t pass1_intervals = 0;            // how many pass 1 formed
  uint32_t pass2_rounds = 0;               // repetitions of pass 2 until no merge
};

// The registers an instruction names, sources and destinations (the
// reference tool's count): general registers only (not predicates, RZ or a
// mechanism's extension registers); a 64-bit operand names both halves in a
// machine program. In a PTX program, virtual registers that are not
// predicates.
RegSet namedRegs(const ptx::Function& fn, const ptx::Instr& in, bool machine);

// Forms the intervals of `fn` (its CFG built: ptx::buildCfg). Throws
// rfsim::Error naming the function and the PTX line when one instruction
// names more than n registers.
// With `strands`, the regions of Gebhart et al.'s software-managed register
// hierarchy (LTRF's Fig. 19 "LTRF (strand)"): as Pass 1 forms them, also ended
// before an instruction that reads a long-latency load's result loaded in
// the same region, and never merged by Pass 2 (a loop header still starts
// one: a backward branch ends a strand).
Intervals formIntervals(const ptx::Function& fn, uint32_t n, bool machine, bool strands = false);

}  // namespace rfsim::mech::ltrf
