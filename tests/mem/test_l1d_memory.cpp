// The LD/ST unit's L1D path (mem/l1d_memory.h): coalesced line requests,
// hits, misses with their fill time, requests merged into a pending miss,
// one line request per cycle, write-evict global stores, write-back local
// stores, and the local share of L1D accesses.
#include <catch2/catch.hpp>

#include "config/gpu_config.h"
#include "mem/l1d_memory.h"

using namespace rfsim;

namespace {

func::MemAccess warpAccess(ptx::Space sp, bool write, uint64_t base, uint64_t stride, uint8_t bytes = 4) {
  func::MemAccess a;
  a.space = sp;
  a.write = write;
  a.bytes = bytes;
  a.elems = 1;
  a.mask = ~0u;
  for (uint32_t l = 0; l < 32; ++l) a.addr[l] = base + l * stride;
  return a;
}

}  // namespace

TEST_CASE("L1D path: miss, hit, merged miss, and one line per cycle", "[mem]") {
  const config::GpuConfig cfg;  // v100: L1D hit 28 cycles
  const uint64_t next = 193, hit = cfg.l1d.latency;
  mem::L1dMemory m(cfg, next);
  const auto load = warpAccess(ptx::Space::Global, false, 0x10000, 4);  // one line, 4 sectors
  CHECK(m.accessLatency(load, 0, 100) == hit + next);                       // miss: filled at 100 + 221
  CHECK(m.accessLatency(load, 0, 150) == hit + next - 50);                  // merged into the pending miss
  CHECK(m.accessLatency(load, 0, 400) == hit);                              // filled: a hit
  CHECK(m.stats().misses == 1);
  CHECK(m.stats().hit_reserved == 1);
  CHECK(m.stats().hits == 1);
  // Stride 128 B: 32 lines, one request per cycle; the last misses 31 cycles late.
  const auto strided = warpAccess(ptx::Space::Global, false, 0x100000, 128);
  CHECK(m.accessLatency(strided, 0, 1000) == 31 + hit + next);
  CHECK(m.requests()[size_t(mem::AccessKind::GlobalLoad)] == 3 + 32);
}

TEST_CASE("L1D path: global stores write-evict, local stores allocate", "[mem]") {
  const config::GpuConfig cfg;
  const uint64_t next = 193, hit = cfg.l1d.latency;
  mem::L1dMemory m(cfg, next);
  const auto gload = warpAccess(ptx::Space::Global, false, 0x20000, 4);
  const auto gstore = warpAccess(ptx::Space::Global, true, 0x20000, 4);
  m.accessLatency(gload, 0, 0);
  CHECK(m.accessLatency(gload, 0, 1000) == hit);
  CHECK(m.accessLatency(gstore, 0, 1001) == hit);             // posted
  CHECK(m.accessLatency(gload, 0, 1002) == hit + next);       // the store evicted the sectors
  // A spill then its fill: write-back allocate, so the fill hits. Every
  // lane spills to the same local address of its own thread.
  const auto spill = warpAccess(ptx::Space::Local, true, 0x400, 0);
  const auto fill = warpAccess(ptx::Space::Local, false, 0x400, 0);
  CHECK(m.accessLatency(spill, 0, 2000) == hit);
  CHECK(m.accessLatency(fill, 0, 2001) == hit);
  CHECK(m.localShare() == Approx(2.0 / 6.0));
  // Shared memory does not go through the L1D path.
  const auto sh = warpAccess(ptx::Space::Shared, false, 0, 4);
  CHECK(m.accessLatency(sh, 0, 3000) == hit);
  CHECK(m.stats().accesses == 6);
}

TEST_CASE("L1D path: local memory is interleaved per warp, lane by lane", "[mem]") {
  const config::GpuConfig cfg;
  mem::L1dMemory m(cfg, 193);
  // A 4-byte spill of all 32 lanes is one 128-byte line; an 8-byte one two.
  CHECK(m.localPhysical(0, 1, 0x10, 4) - m.localPhysical(0, 0, 0x10, 4) == 4);
  CHECK(m.localPhysical(0, 31, 0x10, 4) / 128 == m.localPhysical(0, 0, 0x10, 4) / 128);
  CHECK(m.localPhysical(0, 0, 0x14, 4) - m.localPhysical(0, 0, 0x10, 4) == 128);
  CHECK(m.localPhysical(0, 16, 0x10, 8) / 128 == m.localPhysical(0, 0, 0x10, 8) / 128 + 1);
  // Two warps' same local address are different lines: warp 1's fill of
  // the address warp 0 spilled misses.
  const auto spill = warpAccess(ptx::Space::Local, true, 0x40, 0);
  const auto fill = warpAccess(ptx::Space::Local, false, 0x40, 0);
  CHECK(m.accessLatency(spill, 0, 100) == cfg.l1d.latency);
  CHECK(m.accessLatency(fill, 0, 101) == cfg.l1d.latency);        // warp 0: its own spill, a hit
  CHECK(m.accessLatency(fill, 1, 102) == cfg.l1d.latency + 193);  // warp 1: nothing there
  CHECK(m.stats().by_kind[size_t(mem::AccessKind::LocalLoad)].misses == 1);
}

TEST_CASE("L1D path: an uncoalesced access holds the port, the next access queues behind it", "[mem]") {
  const config::GpuConfig cfg;
  const uint64_t hit = cfg.l1d.latency;
  mem::L1dMemory m(cfg, 193);
  const auto strided = warpAccess(ptx::Space::Global, false, 0x100000, 128);  // 32 lines
  const auto one = warpAccess(ptx::Space::Global, false, 0x200000, 4);        // 1 line
  CHECK(m.accessLatency(strided, 0, 0) == 31 + hit + 193);
  // Issued at cycle 1, its one request waits for the port until cycle 32.
  CHECK(m.accessLatency(one, 0, 1) == 31 + hit + 193);
  CHECK(m.counters().port_wait_cycles == 31);
}

TEST_CASE("L1D path: with more ports an uncoalesced access takes fewer cycles", "[mem]") {
  config::GpuConfig cfg;
  const uint64_t next = 193, hit = cfg.l1d.latency;
  cfg.l1d.ports = 4;
  mem::L1dMemory m(cfg, next);
  // 32 lines at 4 per cycle: the last is accepted 7 cycles late.
  const auto strided = warpAccess(ptx::Space::Global, false, 0x100000, 128);
  CHECK(m.accessLatency(strided, 0, 1000) == 7 + hit + next);
  // The next access queues behind the port's last slot (cycle 1007, slot 3 taken).
  const auto one = warpAccess(ptx::Space::Global, false, 0x900000, 4);
  CHECK(m.accessLatency(one, 0, 1000) == 8 + hit + next);
  CHECK(m.counters().port_wait_cycles == 8);
}

TEST_CASE("L1D path: ALL-HIT serves local accesses at hit latency without the cache", "[mem]") {
  config::GpuConfig cfg;
  const uint64_t next = 193, hit = cfg.l1d.latency;
  cfg.l1d.local_all_hit = true;
  mem::L1dMemory m(cfg, next);
  const auto spill = warpAccess(ptx::Space::Local, true, 0x40, 0);
  const auto fill = warpAccess(ptx::Space::Local, false, 0x80, 0);  // never written: would miss
  CHECK(m.accessLatency(spill, 3, 100) == hit);
  CHECK(m.accessLatency(fill, 3, 200) == hit);
  // The cache never saw them: no lookup, no fill, no eviction.
  CHECK(m.stats().accesses == 0);
  CHECK(m.counters().all_hits[size_t(mem::AccessKind::LocalStore)] >= 1);
  CHECK(m.counters().all_hits[size_t(mem::AccessKind::LocalLoad)] >= 1);
  CHECK(m.counters().next_reads == 0);
  // They still take the port: a global access right behind a local one waits.
  const auto g = warpAccess(ptx::Space::Global, false, 0x10000, 4);
  CHECK(m.accessLatency(fill, 0, 300) == hit);
  CHECK(m.accessLatency(g, 0, 300) > hit + next);
  // Global accesses still use the cache.
  CHECK(m.stats().misses == 1);
}
