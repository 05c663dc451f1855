// The vocabulary of a kernel launch that the functional model, the SM and
// the runtime share: grid and block dimensions and a launch's dynamic
// counts. It lives here, at the bottom, so that neither the functional
// model nor the timing model includes the runtime (the runtime's API,
// runtime/runtime.h, re-exports it: rt::Dim3, rt::LaunchStats).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace rfsim::rt {

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t count() const { return uint64_t{x} * y * z; }
};

// Dynamic counts of one launch (functional execution).
inline constexpr size_t kNumMRoles = 10;  // ptx::MRole values (Code .. DemLoad)

struct LaunchStats {
  uint64_t warp_instrs = 0;    // instructions issued per warp (one per active warp per instruction)
  uint64_t thread_instrs = 0;  // instructions times active threads
  std::vector<uint64_t> warp_instrs_by_op;  // indexed by ptx::Op
  // Indexed by ptx::MRole: what the back end added (spills, fills, saves,
  // restores, stack adjustments, argument moves); everything else is Code,
  // which every instruction of a PTX program is.
  std::array<uint64_t, kNumMRoles> warp_instrs_by_role{}, thread_instrs_by_role{};
  uint64_t blocks = 0, warps = 0, threads = 0;
  uint64_t cycles = 0;  // SM cycles (timing runs only)
  uint64_t launches = 0;
  double host_seconds = 0.0;
};

}  // namespace rfsim::rt
