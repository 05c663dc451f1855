// LTRF's per-warp bookkeeping hardware (Sadrosadati et al., section 5.2,
// Figs. 12 and 13), as C++ references of the units:
//
// - the address allocation unit (AAU) of a warp: an *unused* and an
//   *occupied* queue of register-file-cache bank numbers; allocating moves
//   the unused queue's head to the occupied queue's tail, freeing moves a
//   bank from the occupied queue back to the unused queue's tail. Initially
//   every bank is unused. A warp's cached registers are thus one per bank:
//   no two of them ever conflict in the cache;
// - the global allocator of warp offsets: the entry index an active warp
//   owns in every cache bank (one per active warp);
// - the warp control block (WCB): the register-cache address table (per
//   architectural register, the cache bank holding it; the paper's Fig. 12
//   gives ceil(log2 16) = 4 bits an entry plus a valid bit), the warp
//   offset, the working-set (valid) bit vector and the liveness bit vector
//   of LTRF+.
#pragma once

#include <array>
#include <bitset>
#include <cstdint>
#include <vector>

namespace rfsim::mech::ltrf {

inline constexpr uint32_t kMaxRegs = 256;  // architectural registers per thread (the prefetch's 256-bit set)
using RegBits = std::bitset<kMaxRegs>;

// Calls f(r) for every register r set in `b`, in ascending order (a word
// at a time: a working set names a few of the 256).
template <class F>
void forEachReg(const RegBits& b, F f) {
  const RegBits word_mask(~uint64_t{0});
  for (uint32_t k = 0; k < kMaxRegs / 64; ++k) {
    uint64_t w = ((b >> (64 * k)) & word_mask).to_ullong();
    while (w) {
      f(k * 64 + static_cast<uint32_t>(__builtin_ctzll(w)));
      w &= w - 1;
    }
  }
}

// A queue pair over `n` bank numbers, kept in fixed arrays (the RTL's
// shape: two circular buffers of n entries).
class Aau {
 public:
  Aau() { reset(16); }
  explicit Aau(uint32_t banks) { reset(banks); }
  void reset(uint32_t banks);
  // The unused queue's head, moved to the occupied queue; false when every
  // bank is occupied.
  bool allocate(uint8_t& bank);
  // `bank` back from the occupied queue to the unused queue's tail; false
  // (nothing changes) when it is not occupied.
  bool free(uint8_t bank);
  uint32_t unused() const { return unused_n_; }
  uint32_t occupied() const { return occ_n_; }
  uint32_t banks() const { return banks_; }
  // The queues' contents, head first (tests, the RTL comparison).
  std::vector<uint8_t> unusedQueue() const;
  std::vector<uint8_t> occupiedQueue() const { return occ_; }

 private:
  uint32_t banks_ = 0;
  std::vector<uint8_t> unused_;  // circular, head at unused_head_
  uint32_t unused_head_ = 0, unused_n_ = 0;
  std::vector<uint8_t> occ_;     // in allocation order (a free takes from the middle)
  uint32_t occ_n_ = 0;
};

// The global AAU (section 5.2: "the same mechanism is used to allocate
// warp-offset addresses"): the queues over warp offsets 0..n-1.
class OffsetAllocator {
 public:
  explicit OffsetAllocator(uint32_t n = 8) : q_(n) {}
  bool allocate(uint8_t& off) { return q_.allocate(off); }
  void free(uint8_t off) { q_.free(off); }
  uint32_t inUse() const { return q_.occupied(); }
  uint32_t size() const { return q_.banks(); }

 private:
  Aau q_;
};

struct Wcb {
  static constexpr uint8_t kNone = 0xff;
  std::array<uint8_t, kMaxRegs> bank;  // the address table: cache bank of each register, kNone: not cached
  uint8_t offset = kNone;              // warp offset, kNone while the warp is inactive
  RegBits valid;                       // working set: registers with a cache entry
  RegBits live;                        // liveness (LTRF+): registers holding a value a later instruction reads
  Wcb() { bank.fill(kNone); }
  void clear() {
    bank.fill(kNone);
    offset = kNone;
    valid.reset();
    live.reset();
  }
};

// Storage of the WCBs of one SM (section 5.2): warps x (regs x entry bits +
// offset bits + working-set vector + liveness vector). With 64 warps, 256
// registers, 5-bit entries and 8 active warps (3 offset bits): 114 880 bits;
// with the 4-bit entries Fig. 12 draws: 98 496 (docs/ltrf.md).
uint64_t wcbStorageBits(uint32_t warps, uint32_t regs, uint32_t entry_bits, uint32_t active_warps);

}  // namespace rfsim::mech::ltrf
