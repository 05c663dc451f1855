#include "func/block_log.h"

#include <algorithm>
#include <cstring>

#include "func/semantics/semantics.h"

namespace rfsim::func {

void Ranges::merge() {
  if (v_.size() < 2) return;
  std::sort(v_.begin(), v_.end());
  size_t k = 0;
  for (size_t i = 1; i < v_.size(); ++i) {
    if (v_[i].first <= v_[k].second) v_[k].second = std::max(v_[k].second, v_[i].second);
    else v_[++k] = v_[i];
  }
  v_.resize(k + 1);
}

bool Ranges::meets(const Ranges& o) const {
  size_t i = 0, j = 0;
  const auto& a = v_;
  const auto& b = o.v_;
  while (i < a.size() && j < b.size()) {
    if (a[i].second <= b[j].first) ++i;
    else if (b[j].second <= a[i].first) ++j;
    else return true;
  }
  return false;
}

void RangeSet::add(uint64_t lo, uint64_t hi) {
  if (hi <= lo) return;
  // The first range that could touch [lo, hi): the last one starting at or
  // before lo, if it reaches lo.
  auto it = m_.upper_bound(lo);
  if (it != m_.begin()) {
    auto prev = std::prev(it);
    if (prev->second >= lo) it = prev;
  }
  while (it != m_.end() && it->first <= hi) {
    lo = std::min(lo, it->first);
    hi = std::max(hi, it->second);
    it = m_.erase(it);
  }
  m_.emplace(lo, hi);
}

bool RangeSet::meets(uint64_t lo, uint64_t hi) const {
  auto it = m_.lower_bound(hi);  // the first range starting at or after hi does not meet
  if (it == m_.begin()) return false;
  return std::prev(it)->second > lo;
}

void BlockLog::reset(Mode m) {
  mode_ = m;
  reads_.clear();
  direct_writes_.clear();
  writes_.clear();
  reduced_.clear();
  words_.clear();
  reductions_.clear();
  sealed_writes_.clear();
}

void BlockLog::overlay(uint64_t addr, const uint8_t* mem, uint8_t* out, unsigned n) const {
  if (!reduced_.empty() && reduced_.meets(addr, addr + n)) throw NeedsSerial{};
  for (unsigned i = 0; i < n; ++i) out[i] = static_cast<uint8_t>(loadRelaxed(mem + i, 1));  // memory.h
  for (uint64_t a = addr & ~7ull; a < addr + n; a += 8) {
    auto it = words_.find(a >> 3);
    if (it == words_.end()) continue;
    const Word& w = it->second;
    for (unsigned i = 0; i < 8; ++i) {
      const uint64_t x = a + i;
      if (x >= addr && x < addr + n && (w.mask >> i & 1)) out[x - addr] = static_cast<uint8_t>(w.data >> (8 * i));
    }
  }
}

void BlockLog::store(uint64_t addr, const uint8_t* src, unsigned n) {
  if (!reduced_.empty() && reduced_.meets(addr, addr + n)) throw NeedsSerial{};
  for (unsigned i = 0; i < n;) {
    const uint64_t x = addr + i;
    Word& w = words_[x >> 3];
    for (unsigned b = x & 7; b < 8 && i < n; ++b, ++i) {
      w.data = (w.data & ~(0xffull << (8 * b))) | uint64_t{src[i]} << (8 * b);
      w.mask |= static_cast<uint8_t>(1u << b);
    }
  }
}

void BlockLog::reduce(uint64_t addr, unsigned bytes, ptx::AtomOp op, ptx::Type type, uint64_t b, uint64_t c) {
  // Bytes the block stored itself: the reduction applies to them here (the
  // result does not depend on memory); bytes partly its own: not exact.
  auto it = words_.find(addr >> 3);
  const unsigned at = addr & 7;
  const uint8_t want = static_cast<uint8_t>(((1u << bytes) - 1) << at);
  if (it != words_.end() && (it->second.mask & want)) {
    if ((it->second.mask & want) != want) throw NeedsSerial{};
    uint8_t cur[8], res[8];
    std::memcpy(cur, &it->second.data, 8);
    uint64_t old = 0;
    std::memcpy(&old, cur + at, bytes);
    const uint64_t v = atomicResult(op, type, old, b, c);
    std::memcpy(res, &v, 8);
    store(addr, res, bytes);
    return;
  }
  reductions_.push_back({addr, b, c, op, type, static_cast<uint8_t>(bytes)});
  reduced_.add(addr, addr + bytes);
}

void BlockLog::seal() {
  reads_.merge();
  sealed_writes_.clear();
  if (mode_ == Mode::Direct) std::swap(sealed_writes_, direct_writes_);
  else writes_.into(sealed_writes_);
  sealed_writes_.merge();
}

void BlockLog::apply(GlobalMemory& mem, TranslateCache& tc) const {
  for (const auto& [word, w] : words_) {
    const uint64_t a = word << 3;
    if (w.mask == 0xff) {
      if (uint8_t* p = mem.translate(a, 8, tc)) {
        storeRelaxed(p, w.data, 8);  // later blocks may be reading it (memory.h)
        continue;
      }
    }
    for (unsigned i = 0; i < 8; ++i)
      if (w.mask >> i & 1) storeRelaxed(mem.translate(a + i, 1, tc), w.data >> (8 * i), 1);
  }
  for (const Reduction& r : reductions_) {
    uint8_t* p = mem.translate(r.addr, r.bytes, tc);
    const uint64_t old = loadRelaxed(p, r.bytes);
    storeRelaxed(p, atomicResult(r.op, r.type, old, r.b, r.c), r.bytes);
  }
}

}  // namespace rfsim::func
