// The device (the configured GPU), errors, streams and events. Kernels run
// to completion when launched, so every stream is always idle; an event
// records the simulated time (timing runs), so an application that times
// its kernels with events prints the modelled kernel time.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iostream>

#include <fmt/format.h>

#include "cudart/api.h"
#include "runtime/runtime.h"

using namespace rfsim::cudart;

namespace {

// Device attributes whose answer is the same on every configuration: what
// the model has (L1 caching of global and local loads, stream priorities,
// preemption) and what it does not (multi-GPU boards, persisting L2 lines,
// clusters, RDMA, IPC, MPS).
struct FixedAttribute {
  int attr, value;
};
constexpr FixedAttribute kFixed[] = {
    {cudaDevAttrSurfaceAlignment, 512},
    {cudaDevAttrTccDriver, 0},
    {cudaDevAttrPciDomainId, 0},
    {cudaDevAttrTexturePitchAlignment, 32},
    {cudaDevAttrStreamPrioritiesSupported, 1},
    {cudaDevAttrGlobalL1CacheSupported, 1},
    {cudaDevAttrLocalL1CacheSupported, 1},
    {cudaDevAttrIsMultiGpuBoard, 0},
    {cudaDevAttrMultiGpuBoardGroupID, 0},
    {cudaDevAttrHostNativeAtomicSupported, 0},
    {cudaDevAttrComputePreemptionSupported, 1},
    {cudaDevAttrCanFlushRemoteWrites, 0},
    {cudaDevAttrPageableMemoryAccessUsesHostPageTables, 0},
    {cudaDevAttrDirectManagedMemAccessFromHost, 0},
    {cudaDevAttrMaxPersistingL2CacheSize, 0},
    {cudaDevAttrMaxAccessPolicyWindowSize, 0},
    {cudaDevAttrReservedSharedMemoryPerBlock, 0},
    {cudaDevAttrSparseCudaArraySupported, 0},
    {cudaDevAttrTimelineSemaphoreInteropSupported, 0},
    {cudaDevAttrGPUDirectRDMASupported, 0},
    {cudaDevAttrClusterLaunch, 0},
    {cudaDevAttrDeferredMappingCudaArraySupported, 0},
    {cudaDevAttrIpcEventSupport, 0},
    {cudaDevAttrMemSyncDomainCount, 1},
    {cudaDevAttrMpsEnabled, 0},
    {cudaDevAttrHostMemoryPoolsSupported, 0},
};

const int* fixedAttribute(int attr) {
  for (const FixedAttribute& f : kFixed)
    if (f.attr == attr) return &f.value;
  return nullptr;
}

const char* kRuntimeNote = "events measure simulated time: a functional run has none (rfsim exec --timing)";

}  // namespace

RFSIM_API cudaError_t cudaGetDeviceCount(int* n) {
  return guarded("cudaGetDeviceCount", [&](Session&) {
    if (!n) throw CudaError{cudaErrorInvalidValue, "null result pointer"};
    *n = 1;
  });
}

RFSIM_API cudaError_t cudaSetDevice(int d) {
  return guarded("cudaSetDevice", [&](Session&) {
    if (d != 0) throw CudaError{cudaErrorInvalidDevice, fmt::format("device {}: the model has one GPU, device 0", d)};
  });
}

RFSIM_API cudaError_t cudaGetDevice(int* d) {
  return guarded("cudaGetDevice", [&](Session&) {
    if (!d) throw CudaError{cudaErrorInvalidValue, "null result pointer"};
    *d = 0;
  });
}

RFSIM_API cudaError_t cudaSetDeviceFlags(unsigned) { return guarded("cudaSetDeviceFlags", [](Session&) {}); }
RFSIM_API cudaError_t cudaGetDeviceFlags(unsigned* flags) {
  return guarded("cudaGetDeviceFlags", [&](Session&) {
    if (!flags) throw CudaError{cudaErrorInvalidValue, "null result pointer"};
    *flags = 0x08;  // cudaDeviceMapHost: host memory is always mapped
  });
}
RFSIM_API cudaError_t cudaInitDevice(int d, unsigned, unsigned) {
  return guarded("cudaInitDevice", [&](Session& s) {
    if (d != 0) throw CudaError{cudaErrorInvalidDevice, fmt::format("device {}: the model has one GPU, device 0", d)};
    s.device();
  });
}
RFSIM_API cudaError_t cudaChooseDevice(int* d, const void*) { return cudaGetDevice(d); }

RFSIM_API cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int d) {
  return guarded("cudaGetDeviceProperties", [&](Session& s) {
    if (!p) throw CudaError{cudaErrorInvalidValue, "null result pointer"};
    if (d != 0) throw CudaError{cudaErrorInvalidDevice, fmt::format("device {}: the model has one GPU, device 0", d)};
    const auto& c = s.config();
    std::memset(p, 0, sizeof *p);
    std::snprintf(p->name, sizeof p->name, "rfsim %s", c.name.c_str());
    p->totalGlobalMem = 16ull << 30;
    p->sharedMemPerBlock = std::min<size_t>(c.shared.size_kb * 1024u, 48u * 1024u);
    // What one block may use with the opt-in (shared.max_per_block_kb).
    p->sharedMemPerBlockOptin = (c.shared.max_per_block_kb ? c.shared.max_per_block_kb : c.shared.size_kb) * 1024u;
    p->sharedMemPerMultiprocessor = c.shared.size_kb * 1024u;
    p->regsPerMultiprocessor = static_cast<int>(c.regfile.size_kb * 256u);
    p->regsPerBlock = std::min(p->regsPerMultiprocessor, 65536);
    p->warpSize = static_cast<int>(c.sm.warp_size);
    p->memPitch = SIZE_MAX / 2;
    p->maxThreadsPerBlock = 1024;
    p->maxThreadsDim[0] = p->maxThreadsDim[1] = 1024;
    p->maxThreadsDim[2] = 64;
    p->maxGridSize[0] = 0x7fffffff;
    p->maxGridSize[1] = p->maxGridSize[2] = 65535;
    p->totalConstMem = 64 * 1024;
    const uint32_t cc = s.reportedCapability();
    p->major = static_cast<int>(cc / 10);
    p->minor = static_cast<int>(cc % 10);
    p->textureAlignment = 512;
    p->texturePitchAlignment = 32;
    p->multiProcessorCount = static_cast<int>(c.gpu.num_sms);
    p->canMapHostMemory = 1;
    p->concurrentKernels = 1;
    p->unifiedAddressing = 1;
    p->managedMemory = 1;
    p->concurrentManagedAccess = 0;
    p->l2CacheSize = static_cast<int>(c.l2.cache.size_kb * 1024u);
    p->maxThreadsPerMultiProcessor = static_cast<int>(c.sm.max_threads);
    p->maxBlocksPerMultiProcessor = static_cast<int>(c.sm.max_blocks);
    p->globalL1CacheSupported = p->localL1CacheSupported = 1;
    p->asyncEngineCount = 1;
    p->memoryBusWidth = static_cast<int>(c.dram.bus_bytes * 4u * c.dram.num_channels);  // bus_bytes: both edges of a DDR clock
    p->streamPrioritiesSupported = 1;
    p->cooperativeLaunch = 0;
  });
}

RFSIM_API cudaError_t cudaDeviceGetAttribute(int* v, int attr, int d) {
  return guarded("cudaDeviceGetAttribute", [&](Session& s) {
    if (!v) throw CudaError{cudaErrorInvalidValue, "null result pointer"};
    if (d != 0) throw CudaError{cudaErrorInvalidDevice, fmt::format("device {}: the model has one GPU, device 0", d)};
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) throw CudaError{cudaErrorInitializationError, "no device"};
    switch (attr) {
      case cudaDevAttrMaxThreadsPerBlock: *v = p.maxThreadsPerBlock; break;
      case cudaDevAttrMaxBlockDimX: *v = p.maxThreadsDim[0]; break;
      case cudaDevAttrMaxBlockDimY: *v = p.maxThreadsDim[1]; break;
      case cudaDevAttrMaxBlockDimZ: *v = p.maxThreadsDim[2]; break;
      case cudaDevAttrMaxGridDimX: *v = p.maxGridSize[0]; break;
      case cudaDevAttrMaxGridDimY: *v = p.maxGridSize[1]; break;
      case cudaDevAttrMaxGridDimZ: *v = p.maxGridSize[2]; break;
      case cudaDevAttrMaxSharedMemoryPerBlock: *v = static_cast<int>(p.sharedMemPerBlock); break;
      case cudaDevAttrTotalConstantMemory: *v = static_cast<int>(p.totalConstMem); break;
      case cudaDevAttrWarpSize: *v = p.warpSize; break;
      case cudaDevAttrMaxPitch: *v = 0x7fffffff; break;
      case cudaDevAttrMaxRegistersPerBlock: *v = p.regsPerBlock; break;
      case cudaDevAttrClockRate: *v = static_cast<int>(s.config().gpu.clock_mhz * 1000.0); break;  // kHz
      case cudaDevAttrTextureAlignment: *v = static_cast<int>(p.textureAlignment); break;
      case cudaDevAttrGpuOverlap: *v = 1; break;
      case cudaDevAttrMultiProcessorCount: *v = p.multiProcessorCount; break;
      case cudaDevAttrKernelExecTimeout: case cudaDevAttrIntegrated: case cudaDevAttrComputeMode: *v = 0; break;
      case cudaDevAttrCanMapHostMemory: *v = 1; break;
      case cudaDevAttrConcurrentKernels: *v = 1; break;
      case cudaDevAttrEccEnabled: case cudaDevAttrPciBusId: case cudaDevAttrPciDeviceId: *v = 0; break;
      case cudaDevAttrMemoryClockRate: *v = static_cast<int>(s.config().dram.clock_mhz * 1000.0); break;
      case cudaDevAttrGlobalMemoryBusWidth: *v = p.memoryBusWidth; break;
      case cudaDevAttrL2CacheSize: *v = p.l2CacheSize; break;
      case cudaDevAttrMaxThreadsPerMultiProcessor: *v = p.maxThreadsPerMultiProcessor; break;
      case cudaDevAttrAsyncEngineCount: *v = p.asyncEngineCount; break;
      case cudaDevAttrUnifiedAddressing: *v = 1; break;
      case cudaDevAttrComputeCapabilityMajor: *v = p.major; break;
      case cudaDevAttrComputeCapabilityMinor: *v = p.minor; break;
      case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *v = static_cast<int>(p.sharedMemPerMultiprocessor); break;
      case cudaDevAttrMaxRegistersPerMultiprocessor: *v = p.regsPerMultiprocessor; break;
      case cudaDevAttrManagedMemory: *v = 1; break;
      case cudaDevAttrConcurrentManagedAccess: *v = 0; break;
      case cudaDevAttrCooperativeLaunch: *v = 0; break;
      case cudaDevAttrMaxSharedMemoryPerBlockOptin: *v = static_cast<int>(p.sharedMemPerBlockOptin); break;
      case cudaDevAttrMaxBlocksPerMultiprocessor: *v = p.maxBlocksPerMultiProcessor; break;
      case cudaDevAttrMemoryPoolsSupported: *v = 1; break;  // cudaMallocAsync (api_mempool.cpp)
      case cudaDevAttrMemoryPoolSupportedHandleTypes: *v = 0; break;  // no IPC
      case cudaDevAttrHostRegisterSupported: *v = 1; break;
      case cudaDevAttrHostRegisterReadOnlySupported: *v = 0; break;
      // Registered host memory has a device address of its own (api_memory.cpp),
      // and a kernel cannot reach pageable memory.
      case cudaDevAttrCanUseHostPointerForRegisteredMem: case cudaDevAttrPageableMemoryAccess: *v = 0; break;
      default: {
        const auto in = [attr](int lo, int hi) { return attr >= lo && attr <= hi; };
        if (in(cudaDevAttrMaxTexture1DWidth, cudaDevAttrMaxTexture2DLayeredLayers) ||
            in(cudaDevAttrMaxTexture1DLayeredWidth, cudaDevAttrMaxTexture3DDepthAlt) ||
            in(cudaDevAttrMaxTextureCubemapWidth, cudaDevAttrMaxTexture2DMipmappedHeight) ||
            attr == cudaDevAttrMaxTexture1DMipmappedWidth) {
          *v = 0;  // textures and surfaces are not modelled
          break;
        }
        const int* fixed = fixedAttribute(attr);
        if (!fixed) throw CudaError{cudaErrorNotSupported, fmt::format("device attribute {} is not modelled", attr)};
        *v = *fixed;
      }
    }
  });
}

RFSIM_API cudaError_t cudaDeviceSynchronize() { return guarded("cudaDeviceSynchronize", [](Session&) {}); }
RFSIM_API cudaError_t cudaThreadSynchronize() { return cudaDeviceSynchronize(); }
// Resets nothing the application can still see: allocations stay (their
// pointers are dead to the application anyway); the results are written at
// exit, reset or not.
RFSIM_API cudaError_t cudaDeviceReset() { return guarded("cudaDeviceReset", [](Session&) {}); }
RFSIM_API cudaError_t cudaDeviceSetCacheConfig(int) { return guarded("cudaDeviceSetCacheConfig", [](Session&) {}); }
RFSIM_API cudaError_t cudaDeviceGetCacheConfig(int* c) {
  if (c) *c = 0;  // cudaFuncCachePreferNone
  return c ? cudaSuccess : cudaErrorInvalidValue;
}
RFSIM_API cudaError_t cudaDeviceGetSharedMemConfig(int* c) {
  if (c) *c = 1;  // cudaSharedMemBankSizeFourByte
  return c ? cudaSuccess : cudaErrorInvalidValue;
}
RFSIM_API cudaError_t cudaDeviceSetSharedMemConfig(int) {
  return guarded("cudaDeviceSetSharedMemConfig", [](Session&) {});
}
RFSIM_API cudaError_t cudaDeviceSetLimit(int, size_t) { return guarded("cudaDeviceSetLimit", [](Session&) {}); }
RFSIM_API cudaError_t cudaDeviceGetLimit(size_t* v, int limit) {
  return guarded("cudaDeviceGetLimit", [&](Session&) {
    if (!v) throw CudaError{cudaErrorInvalidValue, "null result pointer"};
    // cudaLimitStackSize 0, PrintfFifoSize 1, MallocHeapSize 2.
    *v = limit == 0 ? 1024 : limit == 1 ? (1u << 20) : limit == 2 ? (8u << 20) : 0;
  });
}
RFSIM_API cudaError_t cudaDriverGetVersion(int* v) {
  if (v) *v = 13000;
  return v ? cudaSuccess : cudaErrorInvalidValue;
}
RFSIM_API cudaError_t cudaRuntimeGetVersion(int* v) { return cudaDriverGetVersion(v); }
RFSIM_API cudaError_t cudaProfilerStart() { return cudaSuccess; }
RFSIM_API cudaError_t cudaProfilerStop() { return cudaSuccess; }

// ---------------------------------------------------------------- errors

RFSIM_API cudaError_t cudaGetLastError() {
  Session& s = Session::get();
  std::lock_guard<std::recursive_mutex> lock(s.mu);
  const cudaError_t e = s.sticky != cudaSuccess ? s.sticky : s.last_error;
  s.last_error = cudaSuccess;
  return e;
}

RFSIM_API cudaError_t cudaPeekAtLastError() {
  Session& s = Session::get();
  std::lock_guard<std::recursive_mutex> lock(s.mu);
  return s.sticky != cudaSuccess ? s.sticky : s.last_error;
}

RFSIM_API const char* cudaGetErrorString(cudaError_t e) { return errorString(e); }
RFSIM_API const char* cudaGetErrorName(cudaError_t e) { return errorName(e); }

// ---------------------------------------------------------------- streams and events

namespace {

// The priority range the device reports (cudaDeviceGetStreamPriorityRange,
// as Hopper's): lower numbers are higher priorities. Every stream runs its
// work in issue order, so priorities change nothing.
constexpr int kLeastPriority = 0, kGreatestPriority = -5;

// The default stream's handles: 0, cudaStreamLegacy (0x1) and
// cudaStreamPerThread (0x2, driver_types.h). The model runs every launch to
// completion in order, so the per-thread default stream is the legacy one.
bool isDefaultStream(void* h) { return reinterpret_cast<uintptr_t>(h) <= 2; }

Stream* streamOf(Session& s, void* h) {
  if (isDefaultStream(h)) return nullptr;
  auto it = s.streams.find(h);
  if (it == s.streams.end()) throw CudaError{cudaErrorInvalidResourceHandle, fmt::format("{} is not a live stream", h)};
  return it->second.get();
}

Event& eventOf(Session& s, void* h) {
  auto it = s.events.find(h);
  if (it == s.events.end()) throw CudaError{cudaErrorInvalidResourceHandle, fmt::format("{} is not a live event", h)};
  return *it->second;
}

}  // namespace

RFSIM_API cudaError_t cudaStreamCreate(void** st) {
  return guarded("cudaStreamCreate", [&](Session& s) {
    if (!st) throw CudaError{cudaErrorInvalidValue, "null result pointer"};
    auto p = std::make_unique<Stream>();
    *st = p.get();
    s.streams.emplace(*st, std::move(p));
  });
}
RFSIM_API cudaError_t cudaStreamCreateWithPriority(void** st, unsigned flags, int priority) {
  const cudaError_t e = cudaStreamCreate(st);
  if (e == cudaSuccess) {
    Session& s = Session::get();
    std::lock_guard<std::recursive_mutex> lock(s.mu);
    Stream* p = s.streams.at(*st).get();
    p->flags = flags;
    p->priority = std::clamp(priority, kGreatestPriority, kLeastPriority);
  }
  return e;
}
RFSIM_API cudaError_t cudaStreamCreateWithFlags(void** st, unsigned flags) {
  return cudaStreamCreateWithPriority(st, flags, kLeastPriority);
}
RFSIM_API cudaError_t cudaStreamGetFlags(void* st, unsigned* flags) {
  return guarded("cudaStreamGetFlags", [&](Session& s) {
    if (!flags) throw CudaError{cudaErrorInvalidValue, "null result pointer"};
    const Stream* p = streamOf(s, st);
    *flags = p ? p->flags : 0;
  });
}
RFSIM_API cudaError_t cudaStreamGetPriority(void* st, int* priority) {
  return guarded("cudaStreamGetPriority", [&](Session& s) {
    if (!priority) throw CudaError{cudaErrorInvalidValue, "null result pointer"};
    const Stream* p = streamOf(s, st);
    *priority = p ? p->priority : kLeastPriority;
  });
}
RFSIM_API cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest) {
  if (least) *least = kLeastPriority;
  if (greatest) *greatest = kGreatestPriority;
  return cudaSuccess;
}
// Work runs to completion when it is issued, so a host function or callback
// runs at once, after everything issued before it.
RFSIM_API cudaError_t cudaLaunchHostFunc(void* st, void (*fn)(void*), void* user) {
  const cudaError_t e = guarded("cudaLaunchHostFunc", [&](Session& s) {
    streamOf(s, st);
    if (!fn) throw CudaError{cudaErrorInvalidValue, "null function"};
  });
  if (e == cudaSuccess) fn(user);  // outside the library's lock: it may call the runtime
  return e;
}
RFSIM_API cudaError_t cudaStreamAddCallback(void* st, void (*cb)(void*, cudaError_t, void*), void* user, unsigned) {
  const cudaError_t e = guarded("cudaStreamAddCallback", [&](Session& s) {
    streamOf(s, st);
    if (!cb) throw CudaError{cudaErrorInvalidValue, "null callback"};
  });
  if (e == cudaSuccess) cb(st, cudaSuccess, user);
  return e;
}
RFSIM_API cudaError_t cudaStreamDestroy(void* st) {
  return guarded("cudaStreamDestroy", [&](Session& s) {
    if (isDefaultStream(st)) throw CudaError{cudaErrorInvalidResourceHandle, "the default stream cannot be destroyed"};
    streamOf(s, st);
    s.streams.erase(st);
  });
}
RFSIM_API cudaError_t cudaStreamSynchronize(void* st) {
  return guarded("cudaStreamSynchronize", [&](Session& s) { streamOf(s, st); });
}
RFSIM_API cudaError_t cudaStreamQuery(void* st) {
  return guarded("cudaStreamQuery", [&](Session& s) { streamOf(s, st); });
}
RFSIM_API cudaError_t cudaStreamWaitEvent(void* st, void* ev, unsigned) {
  return guarded("cudaStreamWaitEvent", [&](Session& s) {
    streamOf(s, st);
    eventOf(s, ev);
  });
}

RFSIM_API cudaError_t cudaEventCreate(void** ev) {
  return guarded("cudaEventCreate", [&](Session& s) {
    if (!ev) throw CudaError{cudaErrorInvalidValue, "null result pointer"};
    auto p = std::make_unique<Event>();
    *ev = p.get();
    s.events.emplace(*ev, std::move(p));
  });
}
RFSIM_API cudaError_t cudaEventCreateWithFlags(void** ev, unsigned) { return cudaEventCreate(ev); }
RFSIM_API cudaError_t cudaEventDestroy(void* ev) {
  return guarded("cudaEventDestroy", [&](Session& s) {
    eventOf(s, ev);
    s.events.erase(ev);
  });
}
RFSIM_API cudaError_t cudaEventRecord(void* ev, void* st) {
  return guarded("cudaEventRecord", [&](Session& s) {
    streamOf(s, st);
    Event& e = eventOf(s, ev);
    e.recorded = true;
    e.ms = s.nowMs();  // every launch before it has run: its time is now
  });
}
RFSIM_API cudaError_t cudaEventRecordWithFlags(void* ev, void* st, unsigned) { return cudaEventRecord(ev, st); }
RFSIM_API cudaError_t cudaEventSynchronize(void* ev) {
  return guarded("cudaEventSynchronize", [&](Session& s) { eventOf(s, ev); });
}
RFSIM_API cudaError_t cudaEventQuery(void* ev) {
  return guarded("cudaEventQuery", [&](Session& s) { eventOf(s, ev); });
}
RFSIM_API cudaError_t cudaEventElapsedTime(float* ms, void* start, void* end) {
  return guarded("cudaEventElapsedTime", [&](Session& s) {
    if (!ms) throw CudaError{cudaErrorInvalidValue, "null result pointer"};
    const Event &a = eventOf(s, start), &b = eventOf(s, end);
    if (!a.recorded || !b.recorded) throw CudaError{cudaErrorInvalidResourceHandle, "an event was never recorded"};
    if (!s.config().name.empty() && s.nowMs() == 0.0 && !s.warned_functional_time) {
      s.warned_functional_time = true;
      std::cerr << "rfsim cudart: cudaEventElapsedTime: " << kRuntimeNote << "\n";
    }
    *ms = static_cast<float>(b.ms - a.ms);
  });
}

// ---------------------------------------------------------------- textures

RFSIM_API cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, int f) {
  return cudaChannelFormatDesc{x, y, z, w, f};
}

RFSIM_API cudaError_t cudaCreateTextureObject(void*, const void*, const void*, const void*) {
  return unsupported("cudaCreateTextureObject",
                     "texture objects are not modelled: read the array through a pointer (__ldg) instead",
                     __builtin_return_address(0));
}
