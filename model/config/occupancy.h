// Occupancy: how many thread blocks of a kernel an SM holds at once, and which
// resource limits it, as NVIDIA's CUDA occupancy calculator computes it
// (registers per warp rounded up to the allocation unit, shared memory per
// block rounded up to its allocation unit, warps and block slots).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/gpu_config.h"

namespace rfsim::config {

// What the launch needs.
struct KernelFootprint {
  uint32_t threads_per_block = 0;
  uint32_t regs_per_thread = 0;      // the hardware count: highest register used + 1
  uint32_t shared_per_block = 0;     // bytes, static + dynamic
};

enum class Limiter : uint8_t { Registers, SharedMemory, Warps, Blocks };
const char* limiterName(Limiter l);

struct Occupancy {
  uint32_t warps_per_block = 0;
  uint32_t regs_per_warp = 0;       // after rounding to the allocation unit
  uint32_t shared_alloc_per_block = 0;  // after rounding to the allocation unit
  // Blocks per SM each resource allows on its own.
  uint32_t blocks_by_registers = 0;
  uint32_t blocks_by_shared = 0;
  uint32_t blocks_by_warps = 0;
  uint32_t blocks_by_slots = 0;
  uint32_t blocks = 0;              // the minimum: resident blocks per SM
  uint32_t warps = 0;               // resident warps per SM
  double occupancy = 0.0;           // warps / max warps
  std::vector<Limiter> limiters;    // every resource at the minimum (ties included)
  std::string describe() const;     // one line for reports
};

// Shared memory is allocated in 256-byte units on the configurations we model
// (compute capability 5.x-7.x); at most 255 registers per thread (8-bit fields).
inline constexpr uint32_t kSharedAllocUnit = 256;
inline constexpr uint32_t kMaxRegsPerThread = 255;
inline constexpr uint32_t kMaxThreadsPerBlock = 1024;

// Throws rfsim::Error when the kernel cannot launch at all (too many threads
// per block, registers per thread or shared memory per block), naming the
// kernel and the resource.
Occupancy computeOccupancy(const config::GpuConfig& cfg, const KernelFootprint& k,
                           const std::string& kernel = "kernel");

}  // namespace rfsim::config
