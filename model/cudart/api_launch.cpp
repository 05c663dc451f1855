// Registration (the calls nvcc's generated host code makes before main),
// kernel launch, and what the runtime says about kernels.
#include <algorithm>

#include <fmt/format.h>

#include "backend/backend.h"
#include "config/carveout.h"
#include "config/occupancy.h"
#include "cudart/api.h"
#include "runtime/runtime.h"

using namespace rfsim::cudart;
using rfsim::cudart::dim3;

namespace {

// "sm_75" -> 75 (a module's .target); 0 if it names no number.
uint32_t targetArch(const std::string& target) {
  uint32_t v = 0;
  for (char c : target)
    if (c >= '0' && c <= '9') v = v * 10 + static_cast<uint32_t>(c - '0');
    else if (v) break;
  return v;
}

// Registration runs before main(): an exception must not escape into the
// application's static constructors.
template <class F>
void registration(const char* fn, F&& f) {
  Session& s = Session::get();
  std::lock_guard<std::recursive_mutex> lock(s.mu);
  try {
    f(s);
  } catch (const std::exception& e) {
    reportError(fn, cudaErrorInvalidKernelImage, e.what());
  }
}

const rfsim::ptx::Function* entryOf(Session& s, const void* fun) {
  const std::string& name = s.kernelName(fun);
  for (const auto& f : s.device().module().functions)
    if (f.is_entry && f.name == name) return &f;
  throw CudaError{cudaErrorInvalidDeviceFunction, "no .entry " + name + " in the loaded PTX"};
}

}  // namespace

RFSIM_API void** __cudaRegisterFatBinary(void* fat_cubin) {
  void** h = nullptr;
  registration("__cudaRegisterFatBinary", [&](Session& s) { h = s.registerFatbin(fat_cubin); });
  return h;
}

RFSIM_API void __cudaRegisterFatBinaryEnd(void**) {}

RFSIM_API void __cudaUnregisterFatBinary(void** handle) {
  registration("__cudaUnregisterFatBinary", [&](Session& s) { s.unregisterFatbin(handle); });
}

RFSIM_API void __cudaRegisterFunction(void** handle, const char* host_fun, char*, const char* device_name, int,
                                      uint3*, uint3*, dim3*, dim3*, int*) {
  registration("__cudaRegisterFunction", [&](Session& s) { s.registerFunction(handle, host_fun, device_name); });
}

RFSIM_API void __cudaRegisterVar(void** handle, char* host_var, char*, const char* device_name, int, size_t size,
                                 int constant, int) {
  registration("__cudaRegisterVar",
               [&](Session& s) { s.registerVar(handle, host_var, device_name, size, constant != 0); });
}

RFSIM_API void __cudaRegisterManagedVar(void** handle, void** host_ptr, char*, const char* device_name, int,
                                        size_t size, int, int) {
  registration("__cudaRegisterManagedVar",
               [&](Session& s) { s.registerManagedVar(handle, host_ptr, device_name, size); });
}

RFSIM_API char __cudaInitModule(void**) {
  return guarded("__cudaInitModule", [](Session& s) { s.device(); }) == cudaSuccess;
}

RFSIM_API unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared, void* stream) {
  Session& s = Session::get();
  std::lock_guard<std::recursive_mutex> lock(s.mu);
  s.pushConfig(grid, block, shared, stream);
  return 0;
}

RFSIM_API cudaError_t __cudaPopCallConfiguration(dim3* grid, dim3* block, size_t* shared, void* stream) {
  return guarded("__cudaPopCallConfiguration", [&](Session& s) {
    if (!s.popConfig(grid, block, shared, static_cast<void**>(stream)))
      throw CudaError{cudaErrorMissingConfiguration, "a launch without <<<...>>> configuration"};
  });
}

RFSIM_API cudaError_t __cudaGetKernel(void** kernel, const void* fun) {
  return guarded("__cudaGetKernel", [&](Session& s) {
    s.kernelName(fun);
    *kernel = const_cast<void*>(fun);  // the handle is the host stub itself
  });
}

RFSIM_API cudaError_t __cudaLaunchKernel(void* kernel, dim3 grid, dim3 block, void** args, size_t shared,
                                         void* stream) {
  return guarded("kernel launch", [&](Session& s) { s.launch(kernel, grid, block, args, shared, stream); });
}

RFSIM_API cudaError_t __cudaLaunchKernel_ptsz(void* kernel, dim3 grid, dim3 block, void** args, size_t shared,
                                              void* stream) {
  return __cudaLaunchKernel(kernel, grid, block, args, shared, stream);
}

RFSIM_API cudaError_t cudaLaunchKernel(const void* fun, dim3 grid, dim3 block, void** args, size_t shared,
                                       void* stream) {
  return guarded("cudaLaunchKernel", [&](Session& s) { s.launch(fun, grid, block, args, shared, stream); });
}

RFSIM_API cudaError_t cudaLaunchKernel_ptsz(const void* fun, dim3 grid, dim3 block, void** args, size_t shared,
                                            void* stream) {
  return cudaLaunchKernel(fun, grid, block, args, shared, stream);
}

RFSIM_API cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, const void* fun) {
  return guarded("cudaFuncGetAttributes", [&](Session& s) {
    if (!attr) throw CudaError{cudaErrorInvalidValue, "null attributes pointer"};
    const rfsim::ptx::Function* f = entryOf(s, fun);
    const rfsim::backend::CompiledModule* cm = s.device().compiled();
    const rfsim::backend::FunctionReport* rep = cm ? cm->find(f->name) : nullptr;
    *attr = cudaFuncAttributes{};
    attr->numRegs = rep ? static_cast<int>(rep->tree_regs) : 0;
    attr->localSizeBytes = rep ? rep->frame_bytes : 0;
    attr->sharedSizeBytes = s.device().staticSharedBytes(f->name);
    const auto& cfg = s.config();
    int max_threads = 1024;
    if (f->maxntid[0]) max_threads = static_cast<int>(f->maxntid[0] * std::max(1u, f->maxntid[1]) * std::max(1u, f->maxntid[2]));
    if (attr->numRegs > 0)
      max_threads = std::min(max_threads,
                             static_cast<int>(cfg.regfile.size_kb * 256u / static_cast<unsigned>(attr->numRegs)) / 32 * 32);
    attr->maxThreadsPerBlock = max_threads;
    const auto& mod = s.device().module();
    // The virtual architecture the PTX was compiled for (`.target sm_75`:
    // 75), not the PTX ISA version; CUB takes its tuning policy from it.
    attr->ptxVersion = static_cast<int>(targetArch(mod.target));
    attr->binaryVersion = static_cast<int>(s.reportedCapability());
    attr->maxDynamicSharedSizeBytes = static_cast<int>(s.maxDynamicShared(f->name));
    attr->preferredShmemCarveout = s.funcAttrs(f->name).preferred_carveout;
  });
}

RFSIM_API cudaError_t cudaFuncGetName(const char** name, const void* fun) {
  return guarded("cudaFuncGetName", [&](Session& s) {
    if (!name) throw CudaError{cudaErrorInvalidValue, "null result pointer"};
    *name = s.kernelName(fun).c_str();  // the mangled name, as CUDA gives it; lives as long as the process
  });
}

RFSIM_API cudaError_t cudaFuncSetCacheConfig(const void* fun, int) {
  return guarded("cudaFuncSetCacheConfig", [&](Session& s) { s.kernelName(fun); });  // accepted, no effect
}

// The two attributes of shared memory apply to every later launch of the
// kernel (Session::launch); the cluster attributes are accepted without
// effect (the model has no thread-block clusters).
RFSIM_API cudaError_t cudaFuncSetAttribute(const void* fun, int attr, int value) {
  return guarded("cudaFuncSetAttribute", [&](Session& s) {
    const std::string& kernel = s.kernelName(fun);
    const auto& cfg = s.config();
    if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize) {
      // "The sum of this value and the function attribute sharedSizeBytes
      // cannot exceed the device attribute cudaDevAttrMaxSharedMemoryPerBlockOptin."
      const size_t optin = (cfg.shared.max_per_block_kb ? cfg.shared.max_per_block_kb : cfg.shared.size_kb) * 1024u;
      const size_t used = s.device().staticSharedBytes(kernel);
      if (value < 0 || used + static_cast<size_t>(value) > optin)
        throw CudaError{cudaErrorInvalidValue,
                        fmt::format("kernel {}: cudaFuncAttributeMaxDynamicSharedMemorySize {}: with its {} bytes of "
                                    "static shared memory a block may have at most {} bytes",
                                    kernel, value, used, optin)};
      s.funcAttrs(kernel).max_dynamic_shared = value;
    } else if (attr == cudaFuncAttributePreferredSharedMemoryCarveout) {
      if (value < -1 || value > 100)
        throw CudaError{cudaErrorInvalidValue,
                        fmt::format("kernel {}: cudaFuncAttributePreferredSharedMemoryCarveout {}: a percentage 0 to "
                                    "100, or -1 (cudaSharedmemCarveoutDefault)",
                                    kernel, value)};
      s.funcAttrs(kernel).preferred_carveout = value;
    }
  });
}

RFSIM_API cudaError_t cudaFuncSetSharedMemConfig(const void* fun, int) {
  return guarded("cudaFuncSetSharedMemConfig", [&](Session& s) { s.kernelName(fun); });
}

RFSIM_API cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* blocks, const void* fun,
                                                                            int block_size, size_t dyn_shared,
                                                                            unsigned) {
  return guarded("cudaOccupancyMaxActiveBlocksPerMultiprocessor", [&](Session& s) {
    if (!blocks || block_size <= 0) throw CudaError{cudaErrorInvalidValue, "null result or block size <= 0"};
    const rfsim::ptx::Function* f = entryOf(s, fun);
    const rfsim::backend::CompiledModule* cm = s.device().compiled();
    const rfsim::backend::FunctionReport* rep = cm ? cm->find(f->name) : nullptr;
    rfsim::config::KernelFootprint k;
    k.threads_per_block = static_cast<uint32_t>(block_size);
    k.regs_per_thread = rep ? rep->tree_regs : 0;
    k.shared_per_block = static_cast<uint32_t>(s.device().staticSharedBytes(f->name) + dyn_shared);
    try {
      // With the carve-out a launch would get (its preference included).
      const rfsim::config::Carveout c =
          rfsim::config::chooseCarveout(s.config(), k, s.funcAttrs(f->name).preferred_carveout, f->name);
      *blocks = static_cast<int>(
          rfsim::config::computeOccupancy(rfsim::config::withCarveout(s.config(), c), k, f->name).blocks);
    } catch (const rfsim::Error&) {
      *blocks = 0;  // the kernel cannot run with this block size
    }
  });
}

RFSIM_API cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, const void* fun, int block_size,
                                                                   size_t dyn_shared) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks, fun, block_size, dyn_shared, 0);
}
