// Device memory of the functional model: global memory as a set of
// allocations with bounds and alignment checks, and the generic address map.
//
// Generic address map (64-bit; PTX ISA 9.0 section 5.1.1). A generic address
// falls in exactly one of these windows; everything outside the four fixed
// windows is a global address:
//
//   [kGlobalBase, ...)                 global and const allocations (cudaMalloc,
//                                      module .global/.const, device malloc);
//                                      their generic, global and const
//                                      addresses are the same number
//   [kHostWindow,   + kHostWindowSize) host memory the device reaches:
//                                      page-locked (cudaHostAlloc) and
//                                      registered (cudaHostRegister); the
//                                      memory system sends its accesses over
//                                      the host link, not to the L2
//   [kCodeWindow,   + kWindowSize)     function addresses (kCodeWindow + 16*i)
//   [kParamWindow,  + kWindowSize)     kernel parameters (cvta.param)
//   [kSharedWindow, + kWindowSize)     the running block's shared memory
//   [kLocalWindow,  + kWindowSize)     the running thread's local memory
//
// Shared-space addresses are byte offsets into the block's shared memory
// (static symbols first, dynamic `.extern .shared` at the end); local-space
// addresses are byte offsets into the thread's local stack; param-space
// addresses are offsets into the kernel's parameter buffer, or
// kFrameParamBase + a local stack offset for the per-thread parameters of
// .func calls.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace rfsim::func {

inline constexpr uint64_t kGlobalBase = 0x1'0000'0000ull;
inline constexpr uint64_t kWindowSize = 0x1'0000'0000ull;
inline constexpr uint64_t kCodeWindow = 0x7c00'0000'0000ull;
inline constexpr uint64_t kParamWindow = 0x7d00'0000'0000ull;
inline constexpr uint64_t kSharedWindow = 0x7e00'0000'0000ull;
inline constexpr uint64_t kLocalWindow = 0x7f00'0000'0000ull;
inline constexpr uint64_t kHostWindow = 0x2000'0000'0000ull;
inline constexpr uint64_t kHostWindowSize = 0x1000'0000'0000ull;
inline constexpr uint64_t kFrameParamBase = 0x1'0000'0000ull;  // in param space
inline constexpr uint64_t kAllocAlign = 256;

inline bool inWindow(uint64_t addr, uint64_t window) {
  return addr - window < kWindowSize;
}
// Host memory: its accesses cross the host link (mem/tlm/host_link.h).
inline bool isHostAddress(uint64_t addr) { return addr - kHostWindow < kHostWindowSize; }

// Global memory while a launch's blocks run on several host threads
// (parallel_blocks.cpp): a speculative block's loads may meet the
// committing thread's stores to the same bytes. The commit's range check
// throws such a stale value away (the block runs again), but the two
// accesses must still not be a data race in C++'s sense, so in that mode
// every global access goes through these relaxed atomic loads and stores of
// naturally aligned 1, 2, 4 or 8 bytes (the executor's alignment checks
// come first). On x86-64 each is the plain move it replaces; only the
// compiler's vectorising of a warp's copies is given up.
inline uint64_t loadRelaxed(const uint8_t* p, unsigned n) {
  switch (n) {
    case 1: return __atomic_load_n(p, __ATOMIC_RELAXED);
    case 2: return __atomic_load_n(reinterpret_cast<const uint16_t*>(p), __ATOMIC_RELAXED);
    case 4: return __atomic_load_n(reinterpret_cast<const uint32_t*>(p), __ATOMIC_RELAXED);
    default: return __atomic_load_n(reinterpret_cast<const uint64_t*>(p), __ATOMIC_RELAXED);
  }
}

inline void storeRelaxed(uint8_t* p, uint64_t v, unsigned n) {
  switch (n) {
    case 1: __atomic_store_n(p, static_cast<uint8_t>(v), __ATOMIC_RELAXED); break;
    case 2: __atomic_store_n(reinterpret_cast<uint16_t*>(p), static_cast<uint16_t>(v), __ATOMIC_RELAXED); break;
    case 4: __atomic_store_n(reinterpret_cast<uint32_t*>(p), static_cast<uint32_t>(v), __ATOMIC_RELAXED); break;
    default: __atomic_store_n(reinterpret_cast<uint64_t*>(p), v, __ATOMIC_RELAXED); break;
  }
}

// Managed: cudaMallocManaged and __managed__ variables; Host: page-locked
// host memory (cudaMallocHost, cudaHostAlloc). Both are mapped: the host
// reads and writes them at the very address the device uses. Registered:
// the application's own memory (cudaHostRegister), reached by the device at
// an address of its own in the host window.
enum class AllocKind : uint8_t { Malloc, Global, Const, Heap, Managed, Host, Registered };

struct Allocation {
  uint64_t base = 0;
  uint64_t size = 0;  // bytes requested; accesses past it are out of bounds
  AllocKind kind = AllocKind::Malloc;
  std::string name;   // module variable name, or empty
  uint8_t* data = nullptr;     // the bytes: bytes.data(), or the host mapping at `base`
  std::vector<uint8_t> bytes;  // storage of an unmapped allocation
  uint64_t mapped = 0;         // bytes mapped at `base` (mapped allocations), else 0
};

// Allocations never overlap and are separated by at least one unmapped
// 256-byte guard, so an access that runs off the end of one allocation never
// lands in the next. Addresses are not reused after free (a stale pointer
// fails instead of aliasing a new allocation).
// The allocations of one thread's last hits: a kernel streams through a few
// arrays. Each executor keeps its own, so that thread blocks running on
// several host threads at once never write a shared one; an allocation or
// release empties every cache (GlobalMemory's generation).
struct TranslateCache {
  std::array<Allocation*, 4> recent{};
  unsigned next = 0;
  Allocation* last = nullptr;
  uint64_t generation = 0;
  // Kind of the allocation the last translate() hit.
  AllocKind lastKind() const { return last ? last->kind : AllocKind::Malloc; }
};

class GlobalMemory {
 public:
  explicit GlobalMemory(uint64_t capacity_bytes = 16ull << 30) : capacity_(capacity_bytes) {}
  ~GlobalMemory();
  GlobalMemory(const GlobalMemory&) = delete;
  GlobalMemory& operator=(const GlobalMemory&) = delete;

  // Throws rfsim::Error when the live bytes would pass the capacity.
  uint64_t allocate(uint64_t bytes, AllocKind kind, std::string name = {});
  // An allocation the host process shares: its bytes are mapped into the
  // process at the device address itself, so the returned number is a
  // valid host pointer too (unified addressing of managed and mapped host
  // memory). Throws rfsim::Error when no such mapping can be made.
  uint64_t allocateMapped(uint64_t bytes, AllocKind kind, std::string name = {});
  // The device's view of `bytes` of the process's memory at `host` (the
  // bytes stay the application's: nothing is copied or freed), at an address
  // in the host window; released with release(base, AllocKind::Registered).
  // Throws rfsim::Error when it overlaps memory already registered.
  uint64_t registerHost(void* host, uint64_t bytes);
  // Throws rfsim::Error unless `base` is the start of a live allocation of
  // one of the kinds a caller may free (`kind`).
  void release(uint64_t base, AllocKind kind);

  // The allocation containing addr, or nullptr.
  const Allocation* find(uint64_t addr) const;
  // Host pointer for [addr, addr+n) when it lies inside one allocation, else
  // nullptr. Fast path: the allocation of the previous hit.
  uint8_t* translate(uint64_t addr, uint64_t n) { return translate(addr, n, cache_); }
  // The same through a cache of the caller's (an executor's): safe from
  // several threads at once while no allocation is made or released.
  uint8_t* translate(uint64_t addr, uint64_t n, TranslateCache& c) {
    if (c.generation == generation_) {
      for (Allocation* a : c.recent) {
        if (a && addr - a->base < a->size && n <= a->size - (addr - a->base)) {
          c.last = a;
          return a->data + (addr - a->base);
        }
      }
    }
    return translateSlow(addr, n, c);
  }
  // Writes by kernels that another thread could see (stores, atomics and
  // reductions outside a thread's own local memory), counted by the
  // executor: the livelock proof's device epoch (executor.h, armProofs).
  void countWrite() { ++writes_; }
  uint64_t writes() const { return writes_; }
  uint64_t& writeCounter() { return writes_; }
  // Kind of the allocation translate() last hit.
  AllocKind lastKind() const { return cache_.lastKind(); }
  // " (allocation 0x100000000 + 4096 bytes)" or " (no allocation)": the
  // nearest allocation at or below addr, for error messages.
  std::string describe(uint64_t addr) const;

  // Host-side copies; throw rfsim::Error naming the range when it is not
  // inside one allocation.
  void write(uint64_t dst, const void* src, uint64_t n);
  void read(void* dst, uint64_t src, uint64_t n) const;
  void fill(uint64_t dst, uint8_t value, uint64_t n);

  uint64_t liveBytes() const { return live_; }
  uint64_t liveBytes(AllocKind kind) const;

  // The bytes of every live allocation, to undo a launch that was only
  // measured (an oracle that runs each variant from the same memory).
  // restore() writes them back into the allocations still live; ones made
  // since stay as they are.
  using Snapshot = std::vector<std::pair<uint64_t, std::vector<uint8_t>>>;
  Snapshot snapshot() const;
  void restore(const Snapshot& s);

 private:
  uint8_t* translateSlow(uint64_t addr, uint64_t n, TranslateCache& c);
  const Allocation* checkedRange(uint64_t addr, uint64_t n, const char* what) const;

  std::map<uint64_t, Allocation> allocs_;
  uint64_t writes_ = 0;
  // Bumped by every allocation and release: caches of another generation
  // start empty.
  uint64_t generation_ = 1;
  TranslateCache cache_;
  uint64_t next_ = kGlobalBase;
  uint64_t next_host_ = kHostWindow;  // page-locked and registered host memory
  uint64_t live_ = 0;
  uint64_t capacity_;
};

std::string hex(uint64_t v);

}  // namespace rfsim::func
