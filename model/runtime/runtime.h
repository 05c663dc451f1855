// The host-side API that workload drivers program against, in the spirit of
// the CUDA driver API: device memory, module loading and kernel launch. It
// runs kernels functionally (model/func/) or, with DeviceOptions::timing, on
// the GPU timing model (model/gpu/), each device on a GPU of its own
// (gpu::Simulation).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "func/launch.h"
#include "ptx/ir.h"

namespace rfsim::backend {
struct CompiledModule;
}
namespace rfsim::config {
struct GpuConfig;
}
namespace rfsim::sm {
class SmTrace;
class Sm;
}
namespace rfsim::mech {
class Mechanism;
}
namespace rfsim::stats {
class Group;
}
namespace rfsim {
class ProgressLine;
}
namespace rfsim::gpu {
class Simulation;
}
namespace rfsim::func {
class GlobalMemory;
}

namespace rfsim::rt {

// Kernel parameters, packed in the order of the .entry's .param list. Each
// add() checks size and alignment against the kernel's declaration at launch.
class KernelArgs {
 public:
  KernelArgs& ptr(uint64_t device_address) { return raw(&device_address, 8); }
  KernelArgs& i32(int32_t v) { return raw(&v, 4); }
  KernelArgs& u32(uint32_t v) { return raw(&v, 4); }
  KernelArgs& i64(int64_t v) { return raw(&v, 8); }
  KernelArgs& f32(float v) { return raw(&v, 4); }
  KernelArgs& f64(double v) { return raw(&v, 8); }
  // A by-value struct or any other blob.
  KernelArgs& raw(const void* p, size_t n);

  const std::vector<std::vector<uint8_t>>& values() const { return values_; }

 private:
  std::vector<std::vector<uint8_t>> values_;
};

// How a device runs the modules it loads.
struct DeviceOptions {
  // true: compile through the back end (model/backend) and run the machine
  // program over physical registers (the default: what the hardware runs);
  // false: run the PTX's virtual registers (a fresh set per call frame).
  bool machine = true;
  uint32_t max_regs = 0;          // -maxrregcount for the back end (0: none)
  uint32_t regfile_regs = 65536;  // registers of one SM (launch-bounds register limits)
  // Timing: run every launch on the GPU timing model (model/gpu: the SMs,
  // the memory hierarchy) configured by *gpu, which must outlive the device; the
  // functional results are the same, and LaunchStats::cycles is filled.
  bool timing = false;
  // Also the back end's compiler.* keys (null: their defaults).
  const config::GpuConfig* gpu = nullptr;
  // Timing runs: the waveform trace of SM 0 (sm/core/sm_trace.h) every
  // launch records into, one after the other; not owned, must outlive the
  // device; nullptr = none.
  sm::SmTrace* trace = nullptr;
  // Timing runs: called for every SM of every launch after the SM is built
  // and before its first block, to install what the run puts in the SM's
  // extension points (sm/core/hooks.h; e.g. the rename unit in the index
  // path with --rtl). What it installs must outlive the launch.
  std::function<void(sm::Sm& sm, uint32_t sm_id)> sm_setup;
  // The mechanisms switched on (mech/mechanism.h), not owned: every module
  // is compiled into their variants too, each launch runs the variant they
  // choose, they admit blocks and install their hooks into every SM, and
  // their statistics are kept per launch.
  std::vector<mech::Mechanism*> mechanisms;
  // Each launch's progress on a terminal (common/progress.h); not owned,
  // must outlive the device; nullptr = none.
  ProgressLine* progress = nullptr;
};

// Timing runs: what one launch ran and its statistics.
struct LaunchRecord {
  std::string kernel;
  std::string variant;            // the compiled variant it ran ("base" without mechanisms)
  uint32_t regs_per_thread = 0;   // the variant's tree registers
  uint32_t blocks_per_sm = 0;     // admitted blocks per SM
  // The driver's carve-out of the unified L1D/shared array for the launch
  // (config/carveout.h): the SM's shared-memory capacity and the L1D's.
  uint32_t shared_kb = 0;
  uint32_t l1d_kb = 0;
  uint64_t cycles = 0;
  std::unique_ptr<stats::Group> gpu;                      // gpu::GpuStats
  std::vector<std::unique_ptr<stats::Group>> mechanisms;  // one per mechanism that keeps statistics
  std::map<std::string, std::string> notes;               // mechanism -> its note on the launch (Mechanism::launchNote)
  LaunchRecord();
  ~LaunchRecord();
  LaunchRecord(LaunchRecord&&) noexcept;
  LaunchRecord& operator=(LaunchRecord&&) noexcept;
};

class Device {
 public:
  Device();
  explicit Device(const DeviceOptions& options);
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  // Parses and loads a PTX file (throws rfsim::Error naming file:line:col).
  // Module-scope .global/.const variables are allocated and initialised.
  void loadModule(const std::filesystem::path& ptx_file);
  // Several modules compiled separately (nvcc -rdc=true), linked as the
  // device linker would (ptx/link.h) before they are loaded as one.
  void loadModules(const std::vector<std::filesystem::path>& ptx_files);
  const ptx::Module& module() const;
  // The back end's result for the loaded module (machine mode), else null:
  // the baseline compilation, or variant `variant` (null if not compiled).
  const backend::CompiledModule* compiled() const;
  const backend::CompiledModule* compiled(const std::string& variant) const;
  // The variants compiled, "base" first.
  std::vector<std::string> variants() const;
  const DeviceOptions& options() const;
  // Blocks of `block` threads of `kernel` in one whole wave: the SMs times the
  // blocks one SM holds at the kernel's registers and static shared memory
  // (config/occupancy.h), or 0 without a GPU configuration (a functional run
  // of the PTX). rfsim-hw asks the driver (cuOccupancyMaxActiveBlocksPerMultiprocessor).
  uint32_t waveBlocks(const std::string& kernel, uint32_t block) const;

  uint64_t malloc(size_t bytes);  // 256-byte aligned device address; throws on exhaustion
  void free(uint64_t device_address);
  void memcpyHtoD(uint64_t dst, const void* src, size_t bytes);
  void memcpyDtoH(void* dst, uint64_t src, size_t bytes);
  void memset(uint64_t dst, uint8_t value, size_t bytes);
  // The device's global memory (allocations of every kind; the CUDA runtime
  // library's managed and page-locked memory).
  func::GlobalMemory& memory();
  // Static shared memory a block of `kernel` gets: the .shared variables its
  // code reaches, as ptxas counts them (ptx/analysis/shared_layout.h).
  uint32_t staticSharedBytes(const std::string& kernel) const;
  // Address of a module-scope variable (a __device__ or __constant__ global).
  uint64_t symbolAddress(const std::string& name) const;

  // Runs the kernel to completion. Throws rfsim::Error naming the kernel,
  // PC/line, block, thread and address on an out-of-bounds or misaligned
  // access, a trap, an unsupported instruction or a deadlock (barrier never
  // reached by every warp). `preferred_carveout`: the application's
  // preferred shared-memory carve-out in percent of the largest capacity
  // (cudaFuncAttributePreferredSharedMemoryCarveout), -1 for none; timing
  // runs divide the unified L1D/shared array by it (config/carveout.h).
  LaunchStats launch(const std::string& kernel, Dim3 grid, Dim3 block, const KernelArgs& args,
                     uint32_t dynamic_shared_bytes = 0, int preferred_carveout = -1);

  // Sum over all launches since construction.
  const LaunchStats& totals() const;
  // Timing runs: every launch's record, in order.
  const std::vector<LaunchRecord>& launchRecords() const;
  // The records handed over (the device keeps none): for summing them.
  std::vector<LaunchRecord> takeLaunchRecords();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rfsim::rt
