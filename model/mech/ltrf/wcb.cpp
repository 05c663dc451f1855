#include "mech/ltrf/wcb.h"

#include <algorithm>

namespace rfsim::mech::ltrf {

void Aau::reset(uint32_t banks) {
  banks_ = banks;
  unused_.assign(banks, 0);
  for (uint32_t b = 0; b < banks; ++b) unused_[b] = static_cast<uint8_t>(b);
  unused_head_ = 0;
  unused_n_ = banks;
  occ_.clear();
  occ_.reserve(banks);
  occ_n_ = 0;
}

bool Aau::allocate(uint8_t& bank) {
  if (unused_n_ == 0) return false;
  bank = unused_[unused_head_];
  unused_head_ = (unused_head_ + 1) % banks_;
  --unused_n_;
  occ_.push_back(bank);
  ++occ_n_;
  return true;
}

bool Aau::free(uint8_t bank) {
  auto it = std::find(occ_.begin(), occ_.end(), bank);
  if (it == occ_.end()) return false;
  occ_.erase(it);
  --occ_n_;
  unused_[(unused_head_ + unused_n_) % banks_] = bank;
  ++unused_n_;
  return true;
}

std::vector<uint8_t> Aau::unusedQueue() const {
  std::vector<uint8_t> q;
  for (uint32_t i = 0; i < unused_n_; ++i) q.push_back(unused_[(unused_head_ + i) % banks_]);
  return q;
}

uint64_t wcbStorageBits(uint32_t warps, uint32_t regs, uint32_t entry_bits, uint32_t active_warps) {
  uint32_t off_bits = 0;
  while ((1u << off_bits) < active_warps) ++off_bits;
  return uint64_t{warps} * (uint64_t{regs} * entry_bits + off_bits + regs + regs);
}

}  // namespace rfsim::mech::ltrf
