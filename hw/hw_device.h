// What rfsim-hw reads besides rt::Device: the time and the JIT's register
// count of every launch on the real GPU, and which GPU it is.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/runtime.h"

namespace rfsim::hw {

struct LaunchTime {
  std::string kernel;
  double ms = 0.0;          // between events recorded before and after the launch
  int regs = 0;             // registers per thread the driver's JIT gave the kernel
  int local_bytes = 0;      // local memory per thread (its spills and stack)
  uint64_t blocks = 0, threads_per_block = 0;
};

// The launches since the last call, in order.
std::vector<LaunchTime> takeLaunchLog();
// "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 1980 MHz; driver API 13.0)"
std::string deviceName();
int& deviceOrdinalRef();
// 0: every SM; else a green context of at least this many SMs.
int& smLimitRef();
int smLimit();
// 0: the JIT's own register allocation; else at most this many registers per thread.
int& maxRegistersRef();
int maxRegisters();
// The SMs the device's kernels run on (after a Device was made).
int& smCountRef();
int deviceOrdinal();

}  // namespace rfsim::hw
