// The state of the CUDA runtime library (libcudart.so.13) in one
// application process: the configuration and mechanisms chosen by the
// environment (rfsim exec sets it), the fatbins, kernels and variables nvcc's
// registration code hands over before main(), the model's device, and the
// results folder written when the process exits.
//
// Environment (docs/cudart.md): RFSIM_CONFIG (a configuration name or file,
// default v100), RFSIM_MECH (mechanisms), RFSIM_SET (key=value overrides,
// one per line), RFSIM_TIMING (1: the timing model), RFSIM_OUT (the results
// folder), RFSIM_QUIET (1: no per-launch lines), RFSIM_LAUNCH_STATS (how many
// launches keep their full statistics in stats.json; default 100).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cudart/cuda_abi.h"
#include "config/gpu_config.h"
#include "common/progress.h"
#include "runtime/fatbin.h"

namespace rfsim {
class ResultsDir;
}
namespace rfsim::rt {
class Device;
class LaunchAccumulator;
}
namespace rfsim::mech {
class Mechanism;
}

namespace rfsim::cudart {

// What an API call returns to the application, with the message printed.
struct CudaError {
  cudaError_t code;
  std::string message;
};

struct Stream {
  double last_ms = 0.0;  // simulated time when its last work finished
  unsigned flags = 0;    // cudaStreamCreateWithFlags
  int priority = 0;      // cudaStreamCreateWithPriority, clamped to the device's range
};
struct Event {
  bool recorded = false;
  double ms = 0.0;  // simulated time when recorded
};

// A memory pool: the device's default one, or one from cudaMemPoolCreate.
// Every call runs to completion in order, so memory freed to a pool is free
// at once and a pool never holds any back (reserved = used).
struct MemPool {
  std::map<uint64_t, uint64_t> live;  // allocations made from it: base -> bytes
  uint64_t used = 0, used_high = 0;
  uint64_t release_threshold = 0;  // cudaMemPoolAttrReleaseThreshold
  int reuse[3] = {1, 1, 1};        // cudaMemPoolReuse{FollowEventDependencies, AllowOpportunistic, AllowInternalDependencies}
};

// What cudaFuncSetAttribute set for a kernel; every launch of it applies them.
struct FuncAttrs {
  // cudaFuncAttributePreferredSharedMemoryCarveout: percent of the largest
  // shared capacity, -1 (cudaSharedmemCarveoutDefault) for none.
  int preferred_carveout = -1;
  // cudaFuncAttributeMaxDynamicSharedMemorySize in bytes; -1: not set (48 KB
  // less the kernel's static shared memory, the limit without the opt-in).
  int max_dynamic_shared = -1;
};

class Session {
 public:
  // The one session of the process (made at the first call, never destroyed:
  // the exit handler writes the results while static objects may be gone).
  static Session& get();

  std::recursive_mutex mu;

  // Registration (nvcc's module constructors, before main).
  void** registerFatbin(const void* wrapper);
  void registerFunction(void** handle, const void* host_fun, const char* device_name);
  void registerVar(void** handle, const void* host_var, const char* device_name, size_t size, bool constant);
  void registerManagedVar(void** handle, void** host_ptr, const char* device_name, size_t size);
  void unregisterFatbin(void** handle);

  // The device with every registered module loaded (loaded at the first call).
  rt::Device& device();
  const config::GpuConfig& config();
  // The compute capability reported to the application, major * 10 + minor
  // (gpu.reported_compute_capability; by default the configuration's,
  // raised to the lowest PTX target of the registered fatbins).
  uint32_t reportedCapability();

  // The kernel a host stub stands for; throws CudaError.
  const std::string& kernelName(const void* host_fun);
  // A kernel's attributes (cudaFuncSetAttribute), by kernel name.
  FuncAttrs& funcAttrs(const std::string& kernel) { return func_attrs_[kernel]; }
  // The dynamic shared memory a launch of `kernel` may ask for: the
  // opt-in attribute, or 48 KB less its static shared memory.
  size_t maxDynamicShared(const std::string& kernel);
  // A registered variable's device address and size; throws CudaError.
  uint64_t symbol(const void* host_var, size_t* size = nullptr);

  // Launch configuration stack (<<<...>>>).
  void pushConfig(dim3 grid, dim3 block, size_t shared, void* stream);
  bool popConfig(dim3* grid, dim3* block, size_t* shared, void** stream);
  // Runs a kernel to completion; a fault becomes CudaError (sticky).
  void launch(const void* host_fun, dim3 grid, dim3 block, void** args, size_t shared, void* stream);

  // Errors: the last error (cudaGetLastError resets it) and the sticky one
  // a kernel fault leaves (every later call returns it, as on hardware).
  cudaError_t last_error = cudaSuccess;
  cudaError_t sticky = cudaSuccess;

  // Simulated time since the process started, in ms (timing runs; 0 in
  // functional runs).
  double nowMs() const { return now_ms_; }
  std::map<void*, std::unique_ptr<Stream>> streams;
  std::map<void*, std::unique_ptr<Event>> events;
  bool warned_functional_time = false;
  // Memory pools by handle (api_mempool.cpp), the default one made at first use.
  std::map<void*, std::unique_ptr<MemPool>> pools;
  void* default_pool = nullptr;
  void* current_pool = nullptr;  // cudaDeviceSetMemPool; cudaMallocAsync allocates from it
  // Host memory the application registered (cudaHostRegister): its host
  // address -> the device's address for it and its bytes.
  struct Registered {
    uint64_t device = 0, bytes = 0;
  };
  std::map<uint64_t, Registered> registered;

  // Writes stats.json, the configuration and the manifest (idempotent;
  // the exit handler calls it).
  void finish() noexcept;

 private:
  Session();
  ~Session();
  void loadModules();
  void openResults();

  struct Module {
    std::vector<rt::Fatbin> fatbins;
    std::string what;
  };
  std::map<void**, std::unique_ptr<Module>> modules_;  // by handle
  std::vector<void**> order_;                          // handles in registration order
  std::map<const void*, std::string> kernels_;        // host stub -> kernel name
  std::map<std::string, FuncAttrs> func_attrs_;       // kernel name -> its attributes
  struct Var {
    std::string name;
    size_t size = 0;
    bool constant = false;
    void** managed_ptr = nullptr;  // __managed__: the host's pointer to fill
  };
  std::map<const void*, Var> vars_;
  struct Config {
    dim3 grid, block;
    size_t shared = 0;
    void* stream = nullptr;
  };
  std::vector<Config> configs_;

  std::unique_ptr<config::GpuConfig> cfg_;
  std::vector<std::unique_ptr<mech::Mechanism>> mechs_;
  std::unique_ptr<rt::Device> dev_;
  std::unique_ptr<rt::LaunchAccumulator> acc_;  // timing runs: the launches' statistics, summed
  std::unique_ptr<ResultsDir> dir_;
  std::unique_ptr<ProgressLine> progress_;  // each launch's progress on a terminal
  // The application's totals on a terminal (kernels launched, warp
  // instructions, their rate), below the per-launch lines; the line last shown.
  std::unique_ptr<ProgressLine> totals_;
  std::string totals_text_;
  uint64_t warp_instrs_ = 0;
  void showTotals();
  bool timing_ = false, quiet_ = false, finished_ = false;
  bool told_capability_ = false;
  bool out_required_ = false;  // RFSIM_OUT names a folder: write it even without CUDA work
  std::string app_, command_;
  nlohmann::json request_;  // stats.json's run.request: the configuration asked for, the command line
  std::vector<std::string> ptx_files_;
  nlohmann::json launches_ = nlohmann::json::array();  // one line per launch
  std::map<std::string, nlohmann::json> per_kernel_;
  double now_ms_ = 0.0;
  double host_seconds_ = 0.0;
  std::string failure_;  // the first kernel fault
  bool stopped_ = false;  // a launch was stopped as a runaway kernel: the results stay incomplete
};

// Runs an API function's body, turning exceptions into the error code the
// application sees (printed once on stderr with the function's name).
template <class F>
cudaError_t guarded(const char* fn, F&& body);

}  // namespace rfsim::cudart

#include "cudart/session_inl.h"
