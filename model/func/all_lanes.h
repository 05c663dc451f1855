// allLanes(op): op(l) for the 32 lanes of a warp, as a loop the compiler
// vectorises -- with AVX2 where the host has it (the build targets baseline
// x86-64, two 64-bit lanes per vector), picked at run time. For the
// executor's integer column moves (operand columns, register stores,
// 64-bit pairs), whose results are the same at any vector width.
#pragma once

#include <cstdint>

namespace rfsim::func {

extern const bool kHostAvx2;  // all_lanes.cpp

template <class Op>
inline void allLanesBase(Op&& op) {
  for (uint32_t l = 0; l < 32; ++l) op(l);
}

#if defined(__x86_64__)
template <class Op>
[[gnu::target("avx2")]] inline void allLanesAvx2(Op&& op) {
  for (uint32_t l = 0; l < 32; ++l) op(l);
}
#endif

template <class Op>
inline void allLanes(Op&& op) {
#if defined(__x86_64__)
  if (kHostAvx2) return allLanesAvx2(op);
#endif
  allLanesBase(op);
}

}  // namespace rfsim::func
