#include "func/warp.h"

#include <algorithm>
#include <cstring>

namespace rfsim::func {

void Warp::growStack(uint32_t top) {
  if (top <= local_cap) return;
  const uint32_t cap = std::max<uint32_t>(top, std::max<uint32_t>(local_cap * 2, 256));
  std::vector<uint8_t> grown(size_t{cap} * 32, 0);
  for (uint32_t l = 0; l < 32 && local_cap; ++l)
    std::memcpy(grown.data() + size_t{l} * cap, local.data() + size_t{l} * local_cap, local_cap);
  local.swap(grown);
  local_cap = cap;
}

}  // namespace rfsim::func
