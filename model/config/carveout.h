// The L1D/shared-memory carve-out: how the driver divides an SM's unified
// data cache (l1d.unified: l1d.size_kb + shared.size_kb) between shared
// memory and the L1D for one launch, from the shared-memory capacities the
// architecture offers (shared.carveout_kb).
//
// The rule (CUDA C++ Programming Guide, compute capability 7.x, "Shared
// Memory"): "the driver automatically configures the shared memory capacity
// for each kernel to avoid shared memory occupancy bottlenecks". Without a
// preference the launch gets the smallest capacity that holds as many
// blocks as the largest one would (the blocks the occupancy allows, times
// one block's allocation), and the L1D the rest -- the rule GPGPU-Sim's
// adaptive L1 applies (shader_core_config::max_cta: the smallest
// gpgpu_shmem_option holding the kernel's shared memory times its blocks).
// The guide's "while also allowing concurrent execution with already
// launched kernels" does not arise: the model runs one kernel at a time.
//
// An application's preference (cudaFuncSetAttribute with
// cudaFuncAttributePreferredSharedMemoryCarveout: a percentage of the
// largest capacity, cudaSharedmemCarveoutMaxL1 = 0, MaxShared = 100) is
// rounded up to a capacity ("Where a chosen integer percentage does not map
// exactly to a supported capacity ..., the next larger capacity is used")
// and taken as given, occupancy and all, unless one block would not fit:
// "the carveout is treated as a hint. The driver may choose a different
// configuration if required to execute the function" -- then the smallest
// capacity that holds one block.
//
// The L1D keeps the sets l1d.size_kb has and takes the launch's capacity in
// ways, as GPGPU-Sim's adaptive L1 does (cache_config::set_assoc; its
// SM7_QV100 L1D has 4 sets of 128-byte lines), whole ways only: an array
// that does not divide into them (an L1D resized by --set) rounds down.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config/gpu_config.h"
#include "config/occupancy.h"

namespace rfsim::config {

// cudaSharedmemCarveoutDefault: no preference.
inline constexpr int kNoCarveoutPreference = -1;

// One launch's division of the SM's on-chip data memory.
struct Carveout {
  uint32_t shared_kb = 0;  // the SM's shared-memory capacity during the launch
  uint32_t l1d_kb = 0;     // the L1D's capacity (0: none, l1d.size_kb 0)
  uint32_t l1d_assoc = 0;  // its ways (the sets are l1d.size_kb's)
  bool chosen = false;     // false: separate arrays, the configuration's sizes (no carve-out)
};

// The carve-out of a launch of kernel `k` (its threads, registers and
// shared memory per block), with the application's preferred carve-out in
// percent (0..100) or kNoCarveoutPreference. Throws rfsim::Error, as
// computeOccupancy does, when the kernel cannot run at all.
Carveout chooseCarveout(const GpuConfig& cfg, const KernelFootprint& k, int preferred_percent = kNoCarveoutPreference,
                        const std::string& kernel = "kernel");

// The configuration a launch runs with: shared.size_kb, l1d.size_kb and
// l1d.assoc of the carve-out `c`, every other field as `cfg`.
GpuConfig withCarveout(const GpuConfig& cfg, const Carveout& c);

// What a compute capability offers, per the CUDA C++ Programming Guide's
// "Compute Capabilities" sections: the unified data cache and its
// shared-memory capacities (7.0, 7.5, 8.0, 8.6, 8.7, 8.9, 9.0, 10.0),
// or separate arrays (unified_kb 0: 5.x and 6.x). Nothing for a capability
// the guide's table is not copied for here.
struct PublishedCarveouts {
  uint32_t unified_kb = 0;
  std::vector<uint32_t> shared_kb;
};
std::optional<PublishedCarveouts> publishedCarveouts(uint32_t compute_capability);

}  // namespace rfsim::config
