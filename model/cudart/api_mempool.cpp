// Stream-ordered allocation: cudaMallocAsync, cudaFreeAsync and memory
// pools. Every call runs to completion in the order it is made, so an
// allocation on a stream is ready when the call returns and memory freed on
// one is free at once: the pools keep their statistics (used and reserved
// bytes, their high-water marks) and their attributes, and hold nothing back.
#include <algorithm>
#include <cstdint>
#include <memory>

#include <fmt/format.h>

#include "cudart/api.h"
#include "func/memory.h"
#include "runtime/runtime.h"

using namespace rfsim::cudart;
using rfsim::func::AllocKind;

namespace {

// cudaMemPoolAttr (driver_types.h).
enum : int {
  kReuseFollowEventDependencies = 1,
  kReuseAllowOpportunistic = 2,
  kReuseAllowInternalDependencies = 3,
  kReleaseThreshold = 4,
  kReservedMemCurrent = 5,
  kReservedMemHigh = 6,
  kUsedMemCurrent = 7,
  kUsedMemHigh = 8,
};

void* defaultPool(Session& s) {
  if (!s.default_pool) {
    auto p = std::make_unique<MemPool>();
    s.default_pool = p.get();
    s.pools.emplace(s.default_pool, std::move(p));
  }
  if (!s.current_pool) s.current_pool = s.default_pool;
  return s.default_pool;
}

MemPool& poolOf(Session& s, void* h) {
  defaultPool(s);
  auto it = s.pools.find(h);
  if (it == s.pools.end()) throw CudaError{cudaErrorInvalidValue, fmt::format("{} is not a live memory pool", h)};
  return *it->second;
}

void checkStream(Session& s, void* st) {
  if (reinterpret_cast<uintptr_t>(st) > 2 && !s.streams.count(st))  // 0, cudaStreamLegacy, cudaStreamPerThread
    throw CudaError{cudaErrorInvalidResourceHandle, fmt::format("{} is not a live stream", st)};
}

void checkDevice(int d) {
  if (d != 0) throw CudaError{cudaErrorInvalidDevice, fmt::format("device {}: the model has one GPU, device 0", d)};
}

cudaError_t allocAsync(const char* fn, void** p, size_t n, void* pool, void* st, bool current) {
  return guarded(fn, [&](Session& s) {
    if (!p) throw CudaError{cudaErrorInvalidValue, "null result pointer"};
    *p = nullptr;
    checkStream(s, st);
    MemPool& mp = poolOf(s, current ? (defaultPool(s), s.current_pool) : pool);
    if (n == 0) throw CudaError{cudaErrorInvalidValue, "a size of 0 bytes"};
    uint64_t a = 0;
    try {
      a = s.device().memory().allocate(n, AllocKind::Malloc);
    } catch (const rfsim::Error& e) {
      throw CudaError{cudaErrorMemoryAllocation, e.what()};
    }
    mp.live[a] = n;
    mp.used += n;
    mp.used_high = std::max(mp.used_high, mp.used);
    *p = reinterpret_cast<void*>(a);
  });
}

cudaError_t freeAsync(const char* fn, void* p, void* st) {
  return guarded(fn, [&](Session& s) {
    checkStream(s, st);
    if (!p) return;
    const uint64_t a = reinterpret_cast<uint64_t>(p);
    rfsim::func::GlobalMemory& m = s.device().memory();
    const rfsim::func::Allocation* al = m.find(a);
    if (!al || al->base != a || al->kind != AllocKind::Malloc)
      throw CudaError{cudaErrorInvalidValue,
                      fmt::format("{} is not the start of a live cudaMallocAsync/cudaMalloc allocation{} (freed twice, "
                                  "or never allocated?)",
                                  p, m.describe(a))};
    m.release(a, AllocKind::Malloc);
    for (auto& [h, mp] : s.pools) {  // memory from cudaMalloc may be freed here too: then no pool has it
      auto it = mp->live.find(a);
      if (it == mp->live.end()) continue;
      mp->used -= it->second;
      mp->live.erase(it);
      break;
    }
  });
}

}  // namespace

RFSIM_API cudaError_t cudaMallocAsync(void** p, size_t n, void* st) {
  return allocAsync("cudaMallocAsync", p, n, nullptr, st, true);
}
RFSIM_API cudaError_t cudaMallocAsync_ptsz(void** p, size_t n, void* st) {
  return allocAsync("cudaMallocAsync_ptsz", p, n, nullptr, st, true);
}
RFSIM_API cudaError_t cudaMallocFromPoolAsync(void** p, size_t n, void* pool, void* st) {
  return allocAsync("cudaMallocFromPoolAsync", p, n, pool, st, false);
}
RFSIM_API cudaError_t cudaMallocFromPoolAsync_ptsz(void** p, size_t n, void* pool, void* st) {
  return allocAsync("cudaMallocFromPoolAsync_ptsz", p, n, pool, st, false);
}
RFSIM_API cudaError_t cudaFreeAsync(void* p, void* st) { return freeAsync("cudaFreeAsync", p, st); }
RFSIM_API cudaError_t cudaFreeAsync_ptsz(void* p, void* st) { return freeAsync("cudaFreeAsync_ptsz", p, st); }

RFSIM_API cudaError_t cudaDeviceGetDefaultMemPool(void** pool, int d) {
  return guarded("cudaDeviceGetDefaultMemPool", [&](Session& s) {
    checkDevice(d);
    if (!pool) throw CudaError{cudaErrorInvalidValue, "null result pointer"};
    *pool = defaultPool(s);
  });
}
RFSIM_API cudaError_t cudaDeviceGetMemPool(void** pool, int d) {
  return guarded("cudaDeviceGetMemPool", [&](Session& s) {
    checkDevice(d);
    if (!pool) throw CudaError{cudaErrorInvalidValue, "null result pointer"};
    defaultPool(s);
    *pool = s.current_pool;
  });
}
RFSIM_API cudaError_t cudaDeviceSetMemPool(int d, void* pool) {
  return guarded("cudaDeviceSetMemPool", [&](Session& s) {
    checkDevice(d);
    poolOf(s, pool);
    s.current_pool = pool;
  });
}

RFSIM_API cudaError_t cudaMemPoolCreate(void** pool, const void* props) {
  return guarded("cudaMemPoolCreate", [&](Session& s) {
    if (!pool || !props) throw CudaError{cudaErrorInvalidValue, "null pointer"};
    defaultPool(s);
    auto p = std::make_unique<MemPool>();
    *pool = p.get();
    s.pools.emplace(*pool, std::move(p));
  });
}
RFSIM_API cudaError_t cudaMemPoolDestroy(void* pool) {
  return guarded("cudaMemPoolDestroy", [&](Session& s) {
    poolOf(s, pool);
    if (pool == s.default_pool) throw CudaError{cudaErrorInvalidValue, "the default memory pool cannot be destroyed"};
    if (s.current_pool == pool) s.current_pool = s.default_pool;
    s.pools.erase(pool);  // its live allocations stay valid until freed, as in CUDA
  });
}

RFSIM_API cudaError_t cudaMemPoolTrimTo(void* pool, size_t) {
  return guarded("cudaMemPoolTrimTo", [&](Session& s) { poolOf(s, pool); });  // nothing is held back
}

RFSIM_API cudaError_t cudaMemPoolSetAttribute(void* pool, int attr, void* value) {
  return guarded("cudaMemPoolSetAttribute", [&](Session& s) {
    MemPool& mp = poolOf(s, pool);
    if (!value) throw CudaError{cudaErrorInvalidValue, "null value"};
    if (attr >= kReuseFollowEventDependencies && attr <= kReuseAllowInternalDependencies)
      mp.reuse[attr - 1] = *static_cast<int*>(value);
    else if (attr == kReleaseThreshold)
      mp.release_threshold = *static_cast<uint64_t*>(value);
    else if (attr == kReservedMemHigh || attr == kUsedMemHigh) {
      if (*static_cast<uint64_t*>(value) != 0)
        throw CudaError{cudaErrorInvalidValue, "a high-water mark can only be reset to 0"};
      mp.used_high = mp.used;
    } else
      throw CudaError{cudaErrorInvalidValue, fmt::format("memory pool attribute {} cannot be set", attr)};
  });
}

RFSIM_API cudaError_t cudaMemPoolGetAttribute(void* pool, int attr, void* value) {
  return guarded("cudaMemPoolGetAttribute", [&](Session& s) {
    const MemPool& mp = poolOf(s, pool);
    if (!value) throw CudaError{cudaErrorInvalidValue, "null value"};
    switch (attr) {
      case kReuseFollowEventDependencies: case kReuseAllowOpportunistic: case kReuseAllowInternalDependencies:
        *static_cast<int*>(value) = mp.reuse[attr - 1];
        break;
      case kReleaseThreshold: *static_cast<uint64_t*>(value) = mp.release_threshold; break;
      case kReservedMemCurrent: case kUsedMemCurrent: *static_cast<uint64_t*>(value) = mp.used; break;
      case kReservedMemHigh: case kUsedMemHigh: *static_cast<uint64_t*>(value) = mp.used_high; break;
      default: throw CudaError{cudaErrorInvalidValue, fmt::format("{} is not a memory pool attribute", attr)};
    }
  });
}
