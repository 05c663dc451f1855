// Pieces the register allocator's files share (liveness.cpp, regalloc.cpp,
// ra_rewrite.cpp); not an interface for other units. Values are numbered
// densely: virtual register v is index v, physical register r (R0..R254,
// P0..P6 as mach::kPredBase + k) is index nv + r, so one bit set covers both.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "backend/mfunction.h"
#include "backend/regalloc.h"
#include "ptx/machine.h"

namespace rfsim::backend::ra {

class BitSet {
 public:
  BitSet() = default;
  explicit BitSet(uint32_t n) : w_((n + 63) / 64, 0) {}
  void set(uint32_t i) { w_[i >> 6] |= uint64_t{1} << (i & 63); }
  void reset(uint32_t i) { w_[i >> 6] &= ~(uint64_t{1} << (i & 63)); }
  bool test(uint32_t i) const { return (w_[i >> 6] >> (i & 63)) & 1; }
  void clear() { std::fill(w_.begin(), w_.end(), 0); }
  void orWith(const BitSet& o) { for (size_t k = 0; k < w_.size(); ++k) w_[k] |= o.w_[k]; }
  bool operator==(const BitSet& o) const { return w_ == o.w_; }
  // Calls f(i) for every member, ascending.
  template <class F> void forEach(F&& f) const {
    for (size_t k = 0; k < w_.size(); ++k)
      for (uint64_t m = w_[k]; m; m &= m - 1) f(static_cast<uint32_t>(k * 64 + __builtin_ctzll(m)));
  }
 private:
  std::vector<uint64_t> w_;
};

struct ValueSpace {
  uint32_t nv = 0;  // virtual registers
  uint32_t size() const { return nv + ptx::mach::kNumRegIds; }
  uint32_t id(uint32_t idx) const { return idx < nv ? idx : physId(idx - nv); }
};

struct Def {
  uint32_t idx;
  bool guarded;
};

// What one instruction reads and writes, as value indices (a physical pair is
// its two registers; RZ is no value).
struct InstrEffects {
  std::vector<uint32_t> uses;
  std::vector<Def> defs;
  bool ends_path = false;  // an unguarded ret/exit/trap: nothing is live after it
  bool is_call = false;
  bool is_move = false;    // an unguarded mov between registers of the same width
  uint32_t move_dst = 0, move_src = 0;
};
void instrEffects(MFunction& f, ptx::Instr& in, const ValueSpace& vs, InstrEffects& out);

// Per block: values live on entry and on exit (entry_defs are not removed from
// block 0's live_in here: they are defined before it).
struct BlockLive {
  std::vector<BitSet> in, out;
};
BlockLive solveLiveness(MFunction& f, const ValueSpace& vs);

// Per virtual register: what the allocator may still do with it.
enum : uint8_t {
  kNoSpill = 1,    // a temporary made by spilling (or a predicate round trip): never spilled
  kNoConvert = 2,  // a predicate temporary of a GPR round trip: never moved to a GPR again
};
// Sends `vals` (GPR and pair values) to fresh stack slots: a Spill store after
// each def, a Fill load before each use (ra_rewrite.cpp).
void spillValues(MFunction& f, const std::vector<uint32_t>& vals, std::vector<uint8_t>& flags, RaResult& res);
// Once every value has a register: lets spill slots whose values are never
// live at the same point share their bytes (as LLVM's StackSlotColoring
// does), and shrinks f.spill_bytes to the slots left (ra_rewrite.cpp).
void shareSpillSlots(MFunction& f);
// Keeps the predicates `vals` in GPRs: selp after each def, setp before each use.
void predsToGpr(MFunction& f, const std::vector<uint32_t>& vals, std::vector<uint8_t>& flags, RaResult& res);

}  // namespace rfsim::backend::ra
