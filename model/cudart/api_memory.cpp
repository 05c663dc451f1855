// Memory: device allocations, copies, symbols, page-locked host memory and
// managed memory (one address for host and device: func::GlobalMemory maps
// those allocations into the process at their device address).
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "cudart/api.h"
#include "func/memory.h"
#include "runtime/runtime.h"

using namespace rfsim::cudart;
using rfsim::func::AllocKind;

namespace {

uint64_t addr(const void* p) { return reinterpret_cast<uint64_t>(p); }

bool onDevice(Session& s, const void* p) { return s.device().memory().find(addr(p)) != nullptr; }

void copy(Session& s, void* dst, const void* src, size_t n, int kind, const char* what) {
  if (n == 0) return;
  if (!dst || !src) throw CudaError{cudaErrorInvalidValue, fmt::format("{}: null {} pointer", what, dst ? "source" : "destination")};
  rfsim::rt::Device& d = s.device();
  if (kind == cudaMemcpyDefault) {
    const bool dd = onDevice(s, dst), sd = onDevice(s, src);
    kind = dd ? (sd ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
              : (sd ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost);
  }
  switch (kind) {
    case cudaMemcpyHostToHost: std::memmove(dst, src, n); break;
    case cudaMemcpyHostToDevice: d.memcpyHtoD(addr(dst), src, n); break;
    case cudaMemcpyDeviceToHost: d.memcpyDtoH(dst, addr(src), n); break;
    case cudaMemcpyDeviceToDevice: {
      std::vector<uint8_t> tmp(n);
      d.memcpyDtoH(tmp.data(), addr(src), n);
      d.memcpyHtoD(addr(dst), tmp.data(), n);
      break;
    }
    default: throw CudaError{cudaErrorInvalidMemcpyDirection, fmt::format("{}: direction {} is not a cudaMemcpyKind", what, kind)};
  }
}

cudaError_t allocate(const char* fn, void** p, size_t n, AllocKind kind) {
  return guarded(fn, [&](Session& s) {
    if (!p) throw CudaError{cudaErrorInvalidValue, "null result pointer"};
    *p = nullptr;
    if (n == 0) return;
    rfsim::func::GlobalMemory& m = s.device().memory();
    try {
      *p = reinterpret_cast<void*>(kind == AllocKind::Malloc ? m.allocate(n, kind) : m.allocateMapped(n, kind));
    } catch (const rfsim::Error& e) {
      throw CudaError{cudaErrorMemoryAllocation, e.what()};
    }
  });
}

cudaError_t release(const char* fn, void* p, bool host) {
  return guarded(fn, [&](Session& s) {
    if (!p) return;
    rfsim::func::GlobalMemory& m = s.device().memory();
    const rfsim::func::Allocation* a = m.find(addr(p));
    const bool ok = a && a->base == addr(p) &&
                    (host ? a->kind == AllocKind::Host : a->kind == AllocKind::Malloc || a->kind == AllocKind::Managed);
    if (!ok)
      throw CudaError{cudaErrorInvalidValue,
                      fmt::format("{} is not the start of a live {} allocation{} (freed twice, or never allocated?)",
                                  p, host ? "cudaMallocHost/cudaHostAlloc" : "cudaMalloc/cudaMallocManaged",
                                  m.describe(addr(p)))};
    m.release(addr(p), a->kind);
  });
}

}  // namespace

RFSIM_API cudaError_t cudaMalloc(void** p, size_t n) { return allocate("cudaMalloc", p, n, AllocKind::Malloc); }
RFSIM_API cudaError_t cudaMallocManaged(void** p, size_t n, unsigned) {
  return allocate("cudaMallocManaged", p, n, AllocKind::Managed);
}
RFSIM_API cudaError_t cudaMallocHost(void** p, size_t n) { return allocate("cudaMallocHost", p, n, AllocKind::Host); }
RFSIM_API cudaError_t cudaHostAlloc(void** p, size_t n, unsigned) {
  return allocate("cudaHostAlloc", p, n, AllocKind::Host);
}
RFSIM_API cudaError_t cudaFree(void* p) { return release("cudaFree", p, false); }
RFSIM_API cudaError_t cudaFreeHost(void* p) { return release("cudaFreeHost", p, true); }

namespace {

// The registered range holding host address `h`, or end().
auto registeredAt(Session& s, uint64_t h) {
  auto it = s.registered.upper_bound(h);
  if (it == s.registered.begin()) return s.registered.end();
  --it;
  return h - it->first < it->second.bytes ? it : s.registered.end();
}

}  // namespace

RFSIM_API cudaError_t cudaHostGetDevicePointer(void** dev, void* host, unsigned) {
  return guarded("cudaHostGetDevicePointer", [&](Session& s) {
    if (!dev) throw CudaError{cudaErrorInvalidValue, "null result pointer"};
    const uint64_t h = addr(host);
    auto r = registeredAt(s, h);
    if (r != s.registered.end()) {
      *dev = reinterpret_cast<void*>(r->second.device + (h - r->first));
      return;
    }
    const rfsim::func::Allocation* a = s.device().memory().find(h);
    if (!a || a->kind != AllocKind::Host)
      throw CudaError{cudaErrorInvalidValue,
                      fmt::format("{} is neither page-locked memory from cudaHostAlloc nor memory registered with "
                                  "cudaHostRegister", host)};
    *dev = host;  // page-locked memory: the same number on both sides
  });
}

// Registered memory is always mapped (with unified addressing, as on
// hardware): a kernel reaches it at the address cudaHostGetDevicePointer
// gives, which differs from the host's (cudaDevAttrCanUseHostPointerForRegisteredMem
// is 0), and its accesses cross the host link.
RFSIM_API cudaError_t cudaHostRegister(void* p, size_t n, unsigned) {
  return guarded("cudaHostRegister", [&](Session& s) {
    if (!p || n == 0) throw CudaError{cudaErrorInvalidValue, p ? "a size of 0 bytes" : "null pointer"};
    const uint64_t h = addr(p);
    auto next = s.registered.lower_bound(h);
    const bool overlaps = registeredAt(s, h) != s.registered.end() || (next != s.registered.end() && next->first < h + n);
    if (overlaps)
      throw CudaError{cudaErrorHostMemoryAlreadyRegistered,
                      fmt::format("{} + {} bytes overlaps memory already registered", p, n)};
    if (onDevice(s, p))
      throw CudaError{cudaErrorHostMemoryAlreadyRegistered, fmt::format("{} is already device or page-locked memory", p)};
    s.registered[h] = Session::Registered{s.device().memory().registerHost(p, n), n};
  });
}
RFSIM_API cudaError_t cudaHostUnregister(void* p) {
  return guarded("cudaHostUnregister", [&](Session& s) {
    auto it = s.registered.find(addr(p));
    if (it == s.registered.end())
      throw CudaError{cudaErrorHostMemoryNotRegistered, fmt::format("{} is not the start of memory registered with cudaHostRegister", p)};
    s.device().memory().release(it->second.device, AllocKind::Registered);
    s.registered.erase(it);
  });
}

RFSIM_API cudaError_t cudaMallocPitch(void** p, size_t* pitch, size_t width, size_t height) {
  if (!pitch) return guarded("cudaMallocPitch", [](Session&) { throw CudaError{cudaErrorInvalidValue, "null pitch"}; });
  *pitch = (width + 511) / 512 * 512;
  return allocate("cudaMallocPitch", p, *pitch * height, AllocKind::Malloc);
}

RFSIM_API cudaError_t cudaMemcpy(void* dst, const void* src, size_t n, int kind) {
  return guarded("cudaMemcpy", [&](Session& s) { copy(s, dst, src, n, kind, "cudaMemcpy"); });
}
RFSIM_API cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t n, int kind, void*) {
  return guarded("cudaMemcpyAsync", [&](Session& s) { copy(s, dst, src, n, kind, "cudaMemcpyAsync"); });
}

RFSIM_API cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                   size_t height, int kind) {
  return guarded("cudaMemcpy2D", [&](Session& s) {
    if (width > dpitch || width > spitch) throw CudaError{cudaErrorInvalidValue, "width is larger than a pitch"};
    for (size_t r = 0; r < height; ++r)
      copy(s, static_cast<char*>(dst) + r * dpitch, static_cast<const char*>(src) + r * spitch, width, kind,
           "cudaMemcpy2D");
  });
}

RFSIM_API cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                        size_t height, int kind, void*) {
  return cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
}

RFSIM_API cudaError_t cudaMemset2D(void* p, size_t pitch, int value, size_t width, size_t height) {
  return guarded("cudaMemset2D", [&](Session& s) {
    if (width > pitch) throw CudaError{cudaErrorInvalidValue, "width is larger than the pitch"};
    for (size_t r = 0; r < height && width; ++r)
      s.device().memset(addr(p) + r * pitch, static_cast<uint8_t>(value), width);
  });
}
RFSIM_API cudaError_t cudaMemset2DAsync(void* p, size_t pitch, int value, size_t width, size_t height, void*) {
  return cudaMemset2D(p, pitch, value, width, height);
}

RFSIM_API cudaError_t cudaMemset(void* p, int value, size_t n) {
  return guarded("cudaMemset", [&](Session& s) {
    if (n) s.device().memset(addr(p), static_cast<uint8_t>(value), n);
  });
}
RFSIM_API cudaError_t cudaMemsetAsync(void* p, int value, size_t n, void*) { return cudaMemset(p, value, n); }

RFSIM_API cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, size_t n, size_t offset, int kind) {
  return guarded("cudaMemcpyToSymbol", [&](Session& s) {
    size_t size = 0;
    const uint64_t a = s.symbol(symbol, &size);
    if (offset + n > size)
      throw CudaError{cudaErrorInvalidValue, fmt::format("{} bytes at offset {} pass the end of the {}-byte symbol", n, offset, size)};
    copy(s, reinterpret_cast<void*>(a + offset), src, n, kind == cudaMemcpyDeviceToDevice ? kind : cudaMemcpyHostToDevice,
         "cudaMemcpyToSymbol");
  });
}
RFSIM_API cudaError_t cudaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t n, size_t offset, int kind,
                                              void*) {
  return cudaMemcpyToSymbol(symbol, src, n, offset, kind);
}

RFSIM_API cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t n, size_t offset, int kind) {
  return guarded("cudaMemcpyFromSymbol", [&](Session& s) {
    size_t size = 0;
    const uint64_t a = s.symbol(symbol, &size);
    if (offset + n > size)
      throw CudaError{cudaErrorInvalidValue, fmt::format("{} bytes at offset {} pass the end of the {}-byte symbol", n, offset, size)};
    copy(s, dst, reinterpret_cast<const void*>(a + offset), n,
         kind == cudaMemcpyDeviceToDevice ? kind : cudaMemcpyDeviceToHost, "cudaMemcpyFromSymbol");
  });
}
RFSIM_API cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t n, size_t offset, int kind,
                                                void*) {
  return cudaMemcpyFromSymbol(dst, symbol, n, offset, kind);
}

RFSIM_API cudaError_t cudaGetSymbolAddress(void** p, const void* symbol) {
  return guarded("cudaGetSymbolAddress", [&](Session& s) {
    if (!p) throw CudaError{cudaErrorInvalidValue, "null result pointer"};
    *p = reinterpret_cast<void*>(s.symbol(symbol));
  });
}

RFSIM_API cudaError_t cudaGetSymbolSize(size_t* size, const void* symbol) {
  return guarded("cudaGetSymbolSize", [&](Session& s) {
    if (!size) throw CudaError{cudaErrorInvalidValue, "null result pointer"};
    s.symbol(symbol, size);
  });
}

RFSIM_API cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* at, const void* p) {
  return guarded("cudaPointerGetAttributes", [&](Session& s) {
    if (!at) throw CudaError{cudaErrorInvalidValue, "null result pointer"};
    std::memset(at, 0, sizeof *at);
    const uint64_t a = addr(p);
    const rfsim::func::Allocation* al = s.device().memory().find(a);
    auto r = registeredAt(s, a);
    if (r != s.registered.end()) {  // the host's address of registered memory
      at->type = cudaMemoryTypeHost;
      at->hostPointer = const_cast<void*>(p);
      at->devicePointer = reinterpret_cast<void*>(r->second.device + (a - r->first));
    } else if (al && al->kind == AllocKind::Registered) {  // its device address
      for (const auto& [h, reg] : s.registered)
        if (reg.device == al->base) at->hostPointer = reinterpret_cast<void*>(h + (a - al->base));
      at->type = cudaMemoryTypeHost;
      at->devicePointer = const_cast<void*>(p);
    } else if (al) {
      at->type = al->kind == AllocKind::Host      ? cudaMemoryTypeHost
                 : al->kind == AllocKind::Managed ? cudaMemoryTypeManaged
                                                  : cudaMemoryTypeDevice;
      at->devicePointer = const_cast<void*>(p);
      if (al->kind == AllocKind::Host || al->kind == AllocKind::Managed) at->hostPointer = const_cast<void*>(p);
    } else {
      at->type = cudaMemoryTypeUnregistered;  // ordinary host memory
      at->device = -2;                       // as CUDA reports it for unregistered memory
      at->hostPointer = const_cast<void*>(p);
    }
  });
}

RFSIM_API cudaError_t cudaHostGetFlags(unsigned* flags, void* p) {
  return guarded("cudaHostGetFlags", [&](Session& s) {
    if (!flags) throw CudaError{cudaErrorInvalidValue, "null result pointer"};
    const rfsim::func::Allocation* a = s.device().memory().find(addr(p));
    if (!a || a->kind != AllocKind::Host)
      throw CudaError{cudaErrorInvalidValue, fmt::format("{} is not page-locked memory from cudaHostAlloc", p)};
    *flags = 0x02;  // cudaHostAllocMapped: all of it is
  });
}

// Managed memory is one copy that host and device share: a prefetch or an
// advice has nothing to move; each checks its range.
RFSIM_API cudaError_t cudaMemPrefetchAsync(const void* p, size_t n, cudaMemLocation, unsigned, void*) {
  return guarded("cudaMemPrefetchAsync", [&](Session& s) {
    const rfsim::func::Allocation* a = s.device().memory().find(addr(p));
    if (!a || a->kind != AllocKind::Managed || n > a->size - (addr(p) - a->base))
      throw CudaError{cudaErrorInvalidValue, fmt::format("{} + {} bytes is not inside managed memory", p, n)};
  });
}
RFSIM_API cudaError_t cudaMemAdvise(const void* p, size_t n, int, cudaMemLocation) {
  return guarded("cudaMemAdvise", [&](Session& s) {
    const rfsim::func::Allocation* a = s.device().memory().find(addr(p));
    if (!a || a->kind != AllocKind::Managed || n > a->size - (addr(p) - a->base))
      throw CudaError{cudaErrorInvalidValue, fmt::format("{} + {} bytes is not inside managed memory", p, n)};
  });
}

RFSIM_API cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total) {
  return guarded("cudaMemGetInfo", [&](Session& s) {
    const uint64_t cap = 16ull << 30;  // func::GlobalMemory's capacity
    const uint64_t live = s.device().memory().liveBytes();
    if (free_bytes) *free_bytes = cap - live;
    if (total) *total = cap;
  });
}
