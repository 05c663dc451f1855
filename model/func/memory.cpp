#include "func/memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "common/error.h"

namespace rfsim::func {

std::string hex(uint64_t v) { return fmt::format("{:#x}", v); }

uint64_t GlobalMemory::allocate(uint64_t bytes, AllocKind kind, std::string name) {
  if (bytes > capacity_ || live_ + bytes > capacity_)
    throw Error(fmt::format("out of device memory: {} bytes requested, {} of {} bytes in use",
                            bytes, live_, capacity_));
  const uint64_t base = next_;
  const uint64_t span = (bytes + kAllocAlign - 1) / kAllocAlign * kAllocAlign;
  next_ = base + span + kAllocAlign;  // one unmapped guard granule after each allocation
  Allocation a;
  a.base = base;
  a.size = bytes;
  a.kind = kind;
  a.name = std::move(name);
  a.bytes.assign(bytes, 0);
  a.data = a.bytes.data();
  allocs_.emplace(base, std::move(a));
  live_ += bytes;
  return base;
}

uint64_t GlobalMemory::allocateMapped(uint64_t bytes, AllocKind kind, std::string name) {
  if (bytes > capacity_ || live_ + bytes > capacity_)
    throw Error(fmt::format("out of device memory: {} bytes requested, {} of {} bytes in use",
                            bytes, live_, capacity_));
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const uint64_t span = std::max<uint64_t>((bytes + page - 1) / page * page, page);
  // The next page-aligned device address that is free in the process too
  // (the process's own mappings live far above the device's window, but a
  // library may have taken one: then skip past it).
  // Host memory takes its addresses from the host window.
  uint64_t& next = kind == AllocKind::Host ? next_host_ : next_;
  for (int tries = 0; tries < 64; ++tries) {
    const uint64_t base = (next + page - 1) / page * page;
    void* p = mmap(reinterpret_cast<void*>(base), span, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (p == MAP_FAILED || reinterpret_cast<uint64_t>(p) != base) {
      if (p != MAP_FAILED) munmap(p, span);  // a kernel without MAP_FIXED_NOREPLACE placed it elsewhere
      next = base + span + (64ull << 20);
      continue;
    }
    next = base + span + kAllocAlign;
    Allocation a;
    a.base = base;
    a.size = bytes;
    a.kind = kind;
    a.name = std::move(name);
    a.data = static_cast<uint8_t*>(p);
    a.mapped = span;
    allocs_.emplace(base, std::move(a));
    live_ += bytes;
    return base;
  }
  throw Error(fmt::format("cannot map {} bytes of shared host/device memory near {}", bytes, hex(next)));
}

uint64_t GlobalMemory::registerHost(void* host, uint64_t bytes) {
  const uint64_t h = reinterpret_cast<uint64_t>(host);
  for (const auto& [base, a] : allocs_)
    if (a.kind == AllocKind::Registered && h < reinterpret_cast<uint64_t>(a.data) + a.size &&
        reinterpret_cast<uint64_t>(a.data) < h + bytes)
      throw Error(fmt::format("host memory {} + {} bytes overlaps memory registered at {} + {} bytes", hex(h), bytes,
                              hex(reinterpret_cast<uint64_t>(a.data)), a.size));
  const uint64_t base = next_host_ + h % kAllocAlign;  // the same alignment as the host's
  next_host_ = (base + bytes + 2 * kAllocAlign - 1) / kAllocAlign * kAllocAlign;  // and a guard granule
  Allocation a;
  a.base = base;
  a.size = bytes;
  a.kind = AllocKind::Registered;
  a.data = static_cast<uint8_t*>(host);
  allocs_.emplace(base, std::move(a));
  live_ += bytes;
  return base;
}

GlobalMemory::Snapshot GlobalMemory::snapshot() const {
  Snapshot s;
  s.reserve(allocs_.size());
  for (const auto& [base, a] : allocs_) s.emplace_back(base, std::vector<uint8_t>(a.data, a.data + a.size));
  return s;
}

void GlobalMemory::restore(const Snapshot& s) {
  for (const auto& [base, bytes] : s) {
    auto it = allocs_.find(base);
    if (it == allocs_.end() || it->second.size != bytes.size()) continue;
    std::copy(bytes.begin(), bytes.end(), it->second.data);
  }
}

GlobalMemory::~GlobalMemory() {
  for (auto& [base, a] : allocs_)
    if (a.mapped) munmap(a.data, a.mapped);
}

void GlobalMemory::release(uint64_t base, AllocKind kind) {
  auto it = allocs_.find(base);
  if (it == allocs_.end() || it->second.kind != kind)
    throw Error(fmt::format("free of {} which is not the start of a live {} allocation{}",
                            hex(base), kind == AllocKind::Heap ? "device-heap" : "device",
                            describe(base)));
  ++generation_;  // no cache may keep the allocation
  live_ -= it->second.size;
  if (it->second.mapped) munmap(it->second.data, it->second.mapped);
  allocs_.erase(it);
}

const Allocation* GlobalMemory::find(uint64_t addr) const {
  auto it = allocs_.upper_bound(addr);
  if (it == allocs_.begin()) return nullptr;
  --it;
  return addr - it->second.base < it->second.size ? &it->second : nullptr;
}

uint8_t* GlobalMemory::translateSlow(uint64_t addr, uint64_t n, TranslateCache& c) {
  if (c.generation != generation_) c = TranslateCache{{}, 0, nullptr, generation_};
  auto it = allocs_.upper_bound(addr);
  if (it == allocs_.begin()) return nullptr;
  --it;
  Allocation& a = it->second;
  if (addr - a.base >= a.size || n > a.size - (addr - a.base)) return nullptr;
  c.last = &a;
  c.recent[c.next++ % c.recent.size()] = &a;
  return a.data + (addr - a.base);
}

std::string GlobalMemory::describe(uint64_t addr) const {
  auto it = allocs_.upper_bound(addr);
  if (it == allocs_.begin()) return " (no allocation)";
  --it;
  const Allocation& a = it->second;
  return fmt::format(" (allocation {}{} + {} bytes)", hex(a.base),
                     a.name.empty() ? "" : " '" + a.name + "'", a.size);
}

const Allocation* GlobalMemory::checkedRange(uint64_t addr, uint64_t n, const char* what) const {
  const Allocation* a = find(addr);
  if (n == 0 && a == nullptr) {
    // An empty copy is fine anywhere an allocation starts or ends.
    auto it = allocs_.upper_bound(addr);
    if (it != allocs_.begin() && addr == std::prev(it)->second.base + std::prev(it)->second.size)
      return &std::prev(it)->second;
  }
  if (!a || n > a->size - (addr - a->base))
    throw Error(fmt::format("{} of {} bytes at {} is outside device memory{}", what, n, hex(addr),
                            describe(addr)));
  return a;
}

void GlobalMemory::write(uint64_t dst, const void* src, uint64_t n) {
  const Allocation* a = checkedRange(dst, n, "memcpy to device");
  if (n) std::memcpy(a->data + (dst - a->base), src, n);
}

void GlobalMemory::read(void* dst, uint64_t src, uint64_t n) const {
  const Allocation* a = checkedRange(src, n, "memcpy from device");
  if (n) std::memcpy(dst, a->data + (src - a->base), n);
}

void GlobalMemory::fill(uint64_t dst, uint8_t value, uint64_t n) {
  const Allocation* a = checkedRange(dst, n, "memset");
  if (n) std::memset(a->data + (dst - a->base), value, n);
}

uint64_t GlobalMemory::liveBytes(AllocKind kind) const {
  uint64_t n = 0;
  for (const auto& [base, a] : allocs_)
    if (a.kind == kind) n += a.size;
  return n;
}

}  // namespace rfsim::func
