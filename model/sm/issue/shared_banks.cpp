#include "sm/issue/shared_banks.h"

#include <string>

#include "common/error.h"

namespace rfsim::sm {

namespace {

// 128 bytes' worth of lanes.
uint32_t lanesPerPhase(uint32_t bytes) { return bytes <= 4 ? 32 : 32 / (bytes / 4); }

}  // namespace

uint32_t sharedPhases(uint32_t mask, uint32_t bytes) {
  const uint32_t lanes = lanesPerPhase(bytes);
  const uint32_t group = lanes == 32 ? ~0u : (1u << lanes) - 1;
  uint32_t n = 0;
  for (uint32_t first = 0; first < 32; first += lanes) n += (mask >> first & group) != 0;
  return n;
}

uint32_t sharedConflictDegree(const uint64_t* addr, uint32_t mask, uint32_t bytes, uint32_t banks) {
  if (banks == 0 || banks > 64) throw Error("shared memory: bank count " + std::to_string(banks) + " not in 1..64");
  if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8 && bytes != 16)
    throw Error("shared memory: access size " + std::to_string(bytes) + " is not 1, 2, 4, 8 or 16 bytes");
  const uint32_t words_per_lane = bytes <= 4 ? 1 : bytes / 4;
  const uint32_t lanes_per_phase = lanesPerPhase(bytes);
  const bool pow2 = (banks & (banks - 1)) == 0;
  const uint32_t phase_group = lanes_per_phase == 32 ? ~0u : (1u << lanes_per_phase) - 1;
  uint32_t total = 0;
  for (uint32_t first = 0; first < 32; first += lanes_per_phase) {
    const uint32_t active = mask & (phase_group << first);
    if (!active) continue;
    // The common cases first. Words less than `banks` apart are in
    // different banks: a phase whose words all lie within `banks`
    // consecutive words (a stride-1 row, a broadcast, a few rows of a tile)
    // takes one pass.
    {
      uint64_t lo = UINT64_MAX, hi = 0;
      for (uint32_t m = active; m; m &= m - 1) {
        const uint64_t w = addr[__builtin_ctz(m)] / 4;
        lo = w < lo ? w : lo;
        hi = w > hi ? w : hi;
      }
      if (hi + words_per_lane - lo <= banks) {
        total += 1;
        continue;
      }
    }
    // Then: no bank holds two different words (lanes that read one word
    // share it): degree 1, found without the per-bank lists.
    {
      uint64_t seen = 0;
      uint64_t word_of[64];  // per bank, its word; valid where `seen` has its bit
      bool conflict_free = true;
      for (uint32_t m = active; m && conflict_free; m &= m - 1) {
        const uint64_t w0 = addr[__builtin_ctz(m)] / 4;
        for (uint32_t k = 0; k < words_per_lane && conflict_free; ++k) {
          const uint64_t w = w0 + k;
          const uint32_t b = static_cast<uint32_t>(pow2 ? w & (banks - 1) : w % banks);
          const uint64_t bit = uint64_t{1} << b;
          if (!(seen & bit)) {
            seen |= bit;
            word_of[b] = w;
          } else {
            conflict_free = word_of[b] == w;
          }
        }
      }
      if (conflict_free) {
        total += 1;
        continue;
      }
    }
    // A phase's degree: the most distinct words in one bank. Each bank
    // keeps its distinct words (at most 32 in a phase: lanes x words per
    // lane), so a word is compared only with its own bank's.
    uint64_t words[64][32];
    uint32_t per_bank[64] = {};
    uint32_t degree = 0;
    for (uint32_t m = active; m; m &= m - 1) {
      const uint64_t w0 = addr[__builtin_ctz(m)] / 4;
      for (uint32_t k = 0; k < words_per_lane; ++k) {
        const uint64_t w = w0 + k;
        const uint32_t b = static_cast<uint32_t>(pow2 ? w & (banks - 1) : w % banks);
        uint64_t* bw = words[b];
        uint32_t& n = per_bank[b];
        bool seen = false;
        for (uint32_t i = 0; i < n && !seen; ++i) seen = bw[i] == w;
        if (seen) continue;
        bw[n++] = w;
        if (n > degree) degree = n;
      }
    }
    total += degree;
  }
  return total;
}

}  // namespace rfsim::sm
