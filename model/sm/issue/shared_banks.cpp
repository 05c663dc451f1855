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
  uint32_t total = 0;
  for (uint32_t first = 0; first < 32; first += lanes_per_phase) {
    uint64_t words[32];  // distinct words of this phase (at most 32: lanes x words per lane)
    uint32_t nwords = 0;
    for (uint32_t lane = first; lane < first + lanes_per_phase; ++lane) {
      if (!(mask >> lane & 1u)) continue;
      for (uint32_t k = 0; k < words_per_lane; ++k) {
        const uint64_t w = addr[lane] / 4 + k;
        bool seen = false;
        for (uint32_t i = 0; i < nwords && !seen; ++i) seen = words[i] == w;
        if (!seen) words[nwords++] = w;
      }
    }
    if (nwords == 0) continue;
    uint32_t per_bank[64] = {};
    uint32_t degree = 0;
    for (uint32_t i = 0; i < nwords; ++i) {
      const uint32_t n = ++per_bank[words[i] % banks];
      if (n > degree) degree = n;
    }
    total += degree;
  }
  return total;
}

}  // namespace rfsim::sm
