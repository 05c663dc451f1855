#include "func/warp.h"

#include <algorithm>
#include <cstring>

namespace rfsim::func {

void Warp::clearLocal() {
  std::fill(local.begin(), local.end(), 0);
  local_stale = false;
}

void Warp::growStack(uint32_t top) {
  if (top <= local_cap) return;
  if (local_stale) local_cap = 0, local_stale = false;  // nothing to keep
  const uint32_t cap = std::max<uint32_t>(top, std::max<uint32_t>(local_cap * 2, 256));
  std::vector<uint8_t> grown(size_t{cap} * 32, 0);
  for (uint32_t l = 0; l < 32 && local_cap; ++l)
    std::memcpy(grown.data() + size_t{l} * cap, local.data() + size_t{l} * local_cap, local_cap);
  local.swap(grown);
  local_cap = cap;
}

void Warp::growStackDown(uint32_t addr, uint32_t top) {
  if (addr >= local_lo && local_cap) return;
  if (local_stale) local_cap = 0, local_stale = false;  // nothing to keep
  uint64_t cap = std::max<uint64_t>(local_cap, 256);
  while (top - cap > addr) cap = std::min<uint64_t>(cap * 2, top);
  const auto c = static_cast<uint32_t>(cap);
  std::vector<uint8_t> grown(size_t{c} * 32, 0);
  for (uint32_t l = 0; l < 32 && local_cap; ++l)
    std::memcpy(grown.data() + size_t{l} * c + (c - local_cap), local.data() + size_t{l} * local_cap, local_cap);
  local.swap(grown);
  local_cap = c;
  local_lo = top - c;
}

}  // namespace rfsim::func
