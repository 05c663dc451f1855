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
  // Launches whose blocks ran on several host threads, and the blocks of
  // those that ran a second time, alone, because what they read met what a
  // block before them wrote while they ran (func/parallel_blocks.cpp).
  uint64_t parallel_launches = 0, reexecuted_blocks = 0;
  double host_seconds = 0.0;

  // Every count of `o` added to this one's (a device's totals; the parts of
  // a launch run on several threads).
  LaunchStats& operator+=(const LaunchStats& o) {
    warp_instrs += o.warp_instrs;
    thread_instrs += o.thread_instrs;
    if (warp_instrs_by_op.size() < o.warp_instrs_by_op.size()) warp_instrs_by_op.resize(o.warp_instrs_by_op.size());
    for (size_t i = 0; i < o.warp_instrs_by_op.size(); ++i) warp_instrs_by_op[i] += o.warp_instrs_by_op[i];
    for (size_t i = 0; i < kNumMRoles; ++i) {
      warp_instrs_by_role[i] += o.warp_instrs_by_role[i];
      thread_instrs_by_role[i] += o.thread_instrs_by_role[i];
    }
    blocks += o.blocks, warps += o.warps, threads += o.threads;
    cycles += o.cycles, launches += o.launches;
    parallel_launches += o.parallel_launches, reexecuted_blocks += o.reexecuted_blocks;
    host_seconds += o.host_seconds;
    return *this;
  }
};

}  // namespace rfsim::rt
