// The allocation checker's state at a point (check.cpp): what every
// register and stack slot holds, as tokens, which values some path has
// defined, and the meet of two paths' states.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <vector>

#include "backend/check.h"
#include "backend/check_copies.h"
#include "backend/mfunction.h"
#include "ptx/machine.h"

namespace rfsim::backend::checkdetail {

namespace mach = ptx::mach;
using ptx::kNoReg;

// Tokens that are not values. Values are virtual ids (< kPhysBase) and
// physIds (kPhysBase + register); what register r held on entry is
// kEntryBase + r.
constexpr uint32_t kEntryBase = 0x50000000u;
constexpr uint32_t kClobbered = 0xfffffff0u;
constexpr uint32_t kConflict = 0xfffffff1u;
constexpr uint32_t kUndef = 0xfffffff2u;

inline uint32_t entryToken(uint32_t r) { return kEntryBase + r; }

// Which values may have been defined on some path to a point, as a bit set
// over value indices (virtual ids, then the physical values).
class ValueIndex {
 public:
  explicit ValueIndex(const SlotValues& values) {
    for (const auto& block : values)
      for (const auto& slots : block)
        for (uint32_t v : slots)
          if (v < kPhysBase && v + 1 > phys_base_) phys_base_ = v + 1;
  }
  // kNoReg for a token that is not a value.
  uint32_t of(uint32_t t) const {
    if (t < kPhysBase) return t < phys_base_ ? t : kNoReg;
    if (isPhysId(t) && physOf(t) < mach::kNumRegIds) return phys_base_ + physOf(t);
    return kNoReg;
  }
  size_t words() const { return (phys_base_ + mach::kNumRegIds + 63) / 64; }

 private:
  uint32_t phys_base_ = 0;
};

struct State {
  bool reached = false;
  std::array<uint32_t, mach::kNumRegIds> regs{};
  std::map<int64_t, uint32_t> slots;  // R1-relative byte offset (a multiple of 4 apart) -> token
  std::vector<uint64_t> defined;      // ValueIndex bits: values defined on some path here
  // A register stack's pushed values (ptx::ExtRegEffect), oldest first.
  std::vector<uint32_t> stacked;
  bool operator==(const State& o) const {
    return reached == o.reached && regs == o.regs && slots == o.slots && defined == o.defined &&
           stacked == o.stacked;
  }
  bool operator!=(const State& o) const { return !(*this == o); }
  uint32_t slot(int64_t off) const {
    auto it = slots.find(off);
    return it == slots.end() ? kUndef : it->second;
  }
  bool isDefined(uint32_t index) const {
    return index != kNoReg && index / 64 < defined.size() && (defined[index / 64] >> (index % 64)) & 1;
  }
  void define(uint32_t index) {
    if (index != kNoReg) defined[index / 64] |= uint64_t(1) << (index % 64);
  }
};

// Paths that disagree conflict, except that a value never defined on the
// other path is kept: what that path left in the register is garbage the
// program could not have read as the value either (PTX registers defined on
// only some paths), so a correct allocation may leave it. A token stands for
// the set of values the register may be read as: its members (one value, or
// a copy set) and, on that path, every value not yet defined there. The meet
// intersects those sets, which keeps the members both sides hold and the
// members one side holds that the other never defined; so it is monotone,
// and the data flow reaches the same fixpoint whatever order it visits the
// blocks in (a member dropped by a meet that ran before a path was complete
// comes back once that path is). Tokens that are not values (nothing, a
// conflict, a call's clobber) are no members; entry values are defined on
// every path.
inline uint32_t meetToken(uint32_t a, uint32_t b, const State& sa, const State& sb, const ValueIndex& vi, CopySets& cs) {
  if (a == b) return a;
  auto member = [](uint32_t t) { return t != kUndef && t != kConflict && t != kClobbered; };
  const std::vector<uint32_t> ma = cs.members(a), mb = cs.members(b);
  std::vector<uint32_t> keep;
  for (uint32_t t : ma) {
    if (!member(t)) continue;
    const uint32_t i = vi.of(t);
    if (std::binary_search(mb.begin(), mb.end(), t) || (i != kNoReg && !sb.isDefined(i))) keep.push_back(t);
  }
  for (uint32_t t : mb) {
    if (!member(t)) continue;
    const uint32_t i = vi.of(t);
    if (i != kNoReg && !sa.isDefined(i)) keep.push_back(t);
  }
  return keep.empty() ? kConflict : cs.token(std::move(keep));
}

// `into` := into meet `from` (an unreached state is the top element).
inline void meetInto(State& into, const State& from, const ValueIndex& vi, CopySets& cs) {
  if (!from.reached) return;
  if (!into.reached) {
    into = from;
    return;
  }
  for (size_t r = 0; r < into.regs.size(); ++r) into.regs[r] = meetToken(into.regs[r], from.regs[r], into, from, vi, cs);
  for (auto& [off, tok] : into.slots) tok = meetToken(tok, from.slot(off), into, from, vi, cs);
  for (const auto& [off, tok] : from.slots)
    if (!into.slots.count(off)) into.slots[off] = meetToken(kUndef, tok, into, from, vi, cs);
  for (size_t w = 0; w < into.defined.size(); ++w) into.defined[w] |= from.defined[w];
  // Register stacks of different depths cannot meet: every value on them conflicts.
  if (into.stacked.size() != from.stacked.size())
    into.stacked.assign(std::max(into.stacked.size(), from.stacked.size()), kConflict);
  else
    for (size_t i = 0; i < into.stacked.size(); ++i)
      into.stacked[i] = meetToken(into.stacked[i], from.stacked[i], into, from, vi, cs);
}

}  // namespace rfsim::backend::checkdetail
