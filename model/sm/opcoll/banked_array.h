// The port timing of a banked SRAM array: what a register-file level of a
// mechanism (sm/opcoll/regfile_level.h) uses for its own banks -- a
// register-file cache in front of the main register file, and that main
// register file behind it with a bank count and latency of its own
// (docs/mechanisms.md) -- so that it answers a read with the cycle its
// value is there (ReadReply::availableAt) after the bank conflicts it met.
//
// Each bank has `ports` ports; an access books one port of its bank in the
// first cycle >= the earliest it may start in which one is free, and its
// value is there `latency` cycles later. Bookings are kept in a ring of
// `horizon` cycles (no allocation after construction), laid out cycle by
// cycle so that one cycle's slots of every bank share a cache line. The ring
// answers exactly as long as a request's earliest cycle is less than
// `horizon` cycles behind its bank's latest booking; one further behind,
// whose cycles the ring may have reused, is an error, as is a request that
// finds no free port within the horizon.
#pragma once

#include <cstdint>
#include <vector>

namespace rfsim::sm {

class BankedArray {
 public:
  // Throws rfsim::Error for zero banks or ports, or latency 0.
  BankedArray(uint32_t banks, uint32_t ports, uint32_t latency, uint32_t horizon = 4096);

  // Books a port of `bank` at the first cycle >= `earliest` with one free;
  // returns the cycle the access's value is there (that cycle + latency).
  // Inline for the common case, a bank with nothing booked from `earliest`
  // on (a register-file level asks once per operand).
  uint64_t access(uint32_t bank, uint64_t earliest) {
    if (bank < banks_ && earliest >= after_[bank] && !(earliest >> (64 - kCountBits))) {
      slot_[index(bank, earliest)] = (earliest << kCountBits) | 1;
      after_[bank] = earliest + 1;
      ++accesses_;
      ++per_bank_[bank];
      return earliest + latency_;
    }
    return accessBooked(bank, earliest);
  }
  // The cycle access() would book, without booking it.
  uint64_t firstFree(uint32_t bank, uint64_t earliest) const;

  uint32_t banks() const { return banks_; }
  uint32_t latency() const { return latency_; }
  uint64_t accesses() const { return accesses_; }
  uint64_t bankAccesses(uint32_t bank) const { return per_bank_.at(bank); }
  // Cycles accesses waited for a port of their bank, summed (conflicts).
  uint64_t conflictCycles() const { return conflict_cycles_; }
  uint64_t conflicts() const { return conflicts_; }  // accesses that waited at all

 private:
  uint64_t accessBooked(uint32_t bank, uint64_t earliest);
  // Cycle c's place in the ring.
  size_t ring(uint64_t c) const { return ring_mask_ ? size_t(c & ring_mask_) : size_t(c % horizon_); }
  // Bank `bank`'s slot for cycle c.
  size_t index(uint32_t bank, uint64_t c) const { return ring(c) * banks_ + bank; }
  // Throws unless the ring still holds every booking a request at
  // `earliest` may meet (the class comment).
  void checkBehind(uint32_t bank, uint64_t earliest) const;

  uint32_t banks_, ports_, latency_, horizon_;
  uint64_t ring_mask_ = 0;  // horizon_ - 1 when it is a power of two (no division per access)
  // Per ring slot x bank, in one word (one memory access per slot looked
  // at): the cycle the slot holds bookings for above kCountBits, how many
  // below; kEmpty if it never held any.
  static constexpr unsigned kCountBits = 16;
  static constexpr uint64_t kCountMask = (uint64_t{1} << kCountBits) - 1;
  static constexpr uint64_t kEmpty = UINT64_MAX;
  std::vector<uint64_t> slot_;
  // Per bank: one past the latest cycle ever booked (0: none). A cycle at or
  // after it is free without a look at its slot.
  std::vector<uint64_t> after_;
  std::vector<uint64_t> per_bank_;
  uint64_t accesses_ = 0, conflict_cycles_ = 0, conflicts_ = 0;
};

}  // namespace rfsim::sm
