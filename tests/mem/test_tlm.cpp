// The memory side below the L1D over TLM-2.0 (mem/tlm/): exact reply cycles
// of L2 misses, hits, merged misses, posted writes and atomics; DRAM
// bandwidth (with no picosecond lost); the slice hash; MSHR-full retries and
// bypasses; dirty write-backs; counters, statistics, reconfigure and the
// payload an SmPort sends.
//
// SystemC modules can only be created during elaboration, and the sockets
// only carry transactions after it: every module these tests use is built
// once per process (world()), then elaboration is ended (sc_start(0); time
// stays 0, requests are plain calls). So the tests run alike alone (ctest)
// or all in one process; another test of this executable that builds
// SystemC modules after world() would have to join it.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include <systemc>
#include <tlm_utils/simple_target_socket.h>

#include "common/error.h"
#include "config/gpu_config.h"
#include "func/memory.h"
#include "mem/tlm/hierarchy.h"
#include "stats/stats.h"

using namespace rfsim;
using mem::AccessKind;
using mem::MemRequest;

namespace {

// 1 GHz core (1000 ps cycles); 4 slices of 4 KiB (4 ways x 8 sets of 128 B, the set
// the low bits of the line's number in its slice)
// on 2 DRAM channels; DRAM at 500 MHz x 16 B: a 128 B line takes 8 DRAM
// clocks = 16 core cycles, a sector 4. The DRAM's bank timings are zero: a
// request costs its transfer and dram.latency, row hit or not, so these
// tests' arithmetic is the crossbar's and the L2's (the banks and their
// timing: test_dram_controller.cpp; the v100 round trip below).
config::GpuConfig smallConfig() {
  config::GpuConfig c;
  c.gpu.num_sms = 2;
  c.gpu.clock_mhz = 1000.0;
  c.l2.cache = config::CacheConfig{16, 4, 128, 100};
  c.l2.num_slices = 4;
  // Local lines 0, 8, 16 ... of a slice share set 0 (the hashed index:
  // tests/mem/test_cache.cpp).
  c.l2.set_index = config::SetIndex::Linear;
  c.l2.mshr_entries = 32;
  c.l2.mshr_merge = 4;
  c.l2.bytes_per_cycle = 32;
  c.icnt.latency = 10;
  c.icnt.bytes_per_cycle = 32;
  c.dram.num_channels = 2;
  c.dram.clock_mhz = 500.0;
  c.dram.bus_bytes = 16;
  c.dram.latency = 50;
  for (uint32_t* t : {&c.dram.t_rcd, &c.dram.t_rp, &c.dram.t_ras, &c.dram.t_cl, &c.dram.t_cwl, &c.dram.t_ccd_s,
                      &c.dram.t_ccd_l, &c.dram.t_rrd, &c.dram.t_faw, &c.dram.t_wtr, &c.dram.t_rtw, &c.dram.t_wr,
                      &c.dram.t_rtp})
    *t = 0;
  return c;
}

// A target that records what an SmPort sends and answers after `add_ps`.
struct Probe : sc_core::sc_module {
  tlm_utils::simple_target_socket<Probe> socket;
  tlm::tlm_command cmd = tlm::TLM_IGNORE_COMMAND;
  uint64_t addr = 0, delay_in_ps = 0, add_ps = 0;
  unsigned len = 0, width = 0;
  bool data = false, byte_enables = true, error = false;
  mem::MemExtension ext;

  explicit Probe(sc_core::sc_module_name n) : sc_module(n), socket("socket") {
    socket.register_b_transport(this, &Probe::transport);
  }
  void transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& d) {
    cmd = gp.get_command();
    addr = gp.get_address();
    len = gp.get_data_length();
    width = gp.get_streaming_width();
    data = gp.get_data_ptr() != nullptr;
    byte_enables = gp.get_byte_enable_ptr() != nullptr;
    if (const auto* e = gp.get_extension<mem::MemExtension>()) ext = *e;
    delay_in_ps = mem::toPs(d);
    d += mem::fromPs(add_ps);
    gp.set_response_status(error ? tlm::TLM_ADDRESS_ERROR_RESPONSE : tlm::TLM_OK_RESPONSE);
  }
};

struct World {
  config::GpuConfig small = smallConfig();
  config::GpuConfig v100;  // the defaults: 80 SMs, 64 slices, 32 channels
  mem::MemoryHierarchy h{"mem_small", small, 2};
  mem::MemoryHierarchy hv{"mem_v100", v100, v100.gpu.num_sms};
  mem::SmPort port{"probe_port", 3, 1000};
  Probe probe{"probe"};
  World() {
    port.socket.bind(probe.socket);
    mem::MemoryHierarchy::endElaboration();
  }
};

// Built on first use, never destroyed (SystemC objects live as long as the
// simulation kernel, i.e. the process).
World& world() {
  static World* w = new World;
  return *w;
}

// The small hierarchy, empty, under `cfg`, time origin 0.
mem::MemoryHierarchy& fresh(const config::GpuConfig& cfg = smallConfig()) {
  mem::MemoryHierarchy& h = world().h;
  h.reconfigure(cfg);
  h.reset();
  for (uint32_t i = 0; i < h.numPorts(); ++i) h.port(i).setOrigin(sc_core::SC_ZERO_TIME);
  return h;
}

MemRequest rd(uint64_t line, uint8_t mask = 0xF, AccessKind k = AccessKind::GlobalLoad) {
  MemRequest r;
  r.line_addr = line;
  r.sector_mask = mask;
  r.kind = k;
  return r;
}
MemRequest wr(uint64_t line, uint8_t mask = 0xF, AccessKind k = AccessKind::GlobalStore) {
  MemRequest r = rd(line, mask, k);
  r.write = true;
  return r;
}
MemRequest atom(uint64_t line, uint8_t mask) {
  MemRequest r = rd(line, mask, AccessKind::Atomic);
  r.atomic = true;
  return r;
}

// Local line `n` of slice `s` in the small hierarchy.
uint64_t lineIn(uint32_t s, uint64_t n) { return world().h.interconnect().addressMap().lineAddr(s, n); }

// Cycles of the small config (1 GHz).
const config::GpuConfig kC = smallConfig();
const uint64_t kIcnt = kC.icnt.latency, kL2 = kC.l2.cache.latency, kDram = kC.dram.latency;
// DRAM transfer of `bytes`: bytes / bus_bytes DRAM clocks of 2 ns.
uint64_t xfer(uint64_t bytes) { return bytes / kC.dram.bus_bytes * 2; }
// A DRAM command waits for the DRAM's next clock edge (500 MHz: even ns).
uint64_t edge(uint64_t ns) { return (ns + 1) / 2 * 2; }
// Reply serialisation on the SM's port beyond the head flit.
uint64_t tail(uint64_t bytes) { return (bytes + kC.icnt.bytes_per_cycle - 1) / kC.icnt.bytes_per_cycle - 1; }

}  // namespace

TEST_CASE("tlm: unloaded L2 miss and hit take the configured path exactly", "[mem][tlm]") {
  mem::MemoryHierarchy& h = fresh();
  const mem::HierarchyCounters before = h.counters();
  const uint64_t x = lineIn(1, 5);
  // Miss: crossbar, L2 lookup, the DRAM's clock edge, DRAM transfer and
  // latency, reply flits, crossbar.
  const uint64_t miss = edge(7 + kIcnt + kL2) + xfer(128) + kDram + tail(128) + kIcnt;
  CHECK(h.port(0).request(rd(x), 7) == miss);
  // After the fill: a hit.
  const uint64_t later = 1000;
  CHECK(h.port(0).request(rd(x), later) == later + kIcnt + kL2 + tail(128) + kIcnt);
  // One sector: one reply flit, a quarter of the DRAM transfer.
  const uint64_t y = lineIn(2, 9);
  CHECK(h.port(1).request(rd(y, 0x2), 2000) == 2000 + kIcnt + kL2 + xfer(32) + kDram + kIcnt);
  const mem::HierarchyCounters c = h.counters() - before;
  CHECK(c.l2.misses == 2);
  CHECK(c.l2.hits == 1);
  CHECK(c.dram_read_bytes == 128 + 32);
}

TEST_CASE("tlm: the SM's time origin shifts requests and replies", "[mem][tlm]") {
  mem::MemoryHierarchy& h = fresh();
  // Cycle 0 of this launch is 50 ns = 50 cycles after time 0: the same
  // reply, in launch cycles, as from origin 0.
  h.port(0).setOrigin(sc_core::sc_time(50, sc_core::SC_NS));
  // (The DRAM's clock edges are those of absolute time.)
  const uint64_t at_dram = edge(50 + 3 + kIcnt + kL2) - 50;
  CHECK(h.port(0).request(rd(lineIn(0, 1)), 3) == at_dram + xfer(128) + kDram + tail(128) + kIcnt);
  CHECK(h.idleAfter() >= sc_core::sc_time(50 + 3 + kIcnt + kL2 + xfer(128) + kDram, sc_core::SC_NS));
}

TEST_CASE("tlm: a read of a pending line merges and returns with its fill", "[mem][tlm]") {
  mem::MemoryHierarchy& h = fresh();
  const uint64_t x = lineIn(3, 2);
  const uint64_t first = h.port(0).request(rd(x), 0);
  const mem::HierarchyCounters before = h.counters();
  // Another SM (its own reply port) asks 5 cycles later: same fill, same cycle.
  CHECK(h.port(1).request(rd(x), 5) == first);
  // A third request from SM 0 waits behind the first reply's flits on its port.
  CHECK(h.port(0).request(rd(x), 6) == first + tail(128) + 1);
  const mem::HierarchyCounters d = h.counters() - before;
  CHECK(d.l2.hit_reserved == 2);
  CHECK(d.l2.misses == 0);
  CHECK(d.dram_reads == 0);
}

TEST_CASE("tlm: back-to-back misses to one channel are spaced by its transfer time", "[mem][tlm]") {
  mem::MemoryHierarchy& h = fresh();
  const mem::HierarchyCounters before = h.counters();
  const uint64_t ch0 = h.channel(0).counters().reads, ch1 = h.channel(1).counters().reads;
  // Six lines of slice 0 (channel 0), all sent at cycle 0: the crossbar port
  // passes one a cycle, the L2 port one per 4 cycles, DRAM one per 16.
  std::vector<uint64_t> reply;
  for (uint64_t n = 0; n < 6; ++n) reply.push_back(h.port(0).request(rd(lineIn(0, n)), 0));
  CHECK(reply[0] == kIcnt + kL2 + xfer(128) + kDram + tail(128) + kIcnt);
  for (size_t k = 1; k < reply.size(); ++k) CHECK(reply[k] - reply[k - 1] == xfer(128));
  const mem::HierarchyCounters c = h.counters() - before;
  CHECK(c.dram_reads == 6);
  CHECK(c.dram_read_bytes == 6 * 128);
  CHECK(c.dram_busy_ps == 6 * xfer(128) * 1000);
  CHECK(c.dram_queue_ps > 0);
  CHECK(c.icnt_request_queue_ps == (0 + 1 + 2 + 3 + 4 + 5) * 1000);  // one flit a cycle at slice 0's port
  CHECK(h.channel(0).counters().reads - ch0 == 6);
  CHECK(h.channel(1).counters().reads - ch1 == 0);
}

TEST_CASE("tlm: hits to one slice are spaced by its tag/data port", "[mem][tlm]") {
  mem::MemoryHierarchy& h = fresh();
  for (uint64_t n = 0; n < 4; ++n) h.port(0).request(rd(lineIn(0, n)), 0);
  const mem::HierarchyCounters before = h.counters();
  // Four warm lines from two SMs at once: the crossbar port passes one a
  // cycle, each SM's reply port one line per 4 cycles, but the slice's port
  // moves 32 B a cycle: one line per 4 cycles for both SMs together.
  const uint64_t port = 128 / kC.l2.bytes_per_cycle;
  for (uint64_t k = 0; k < 4; ++k)
    CHECK(h.port(k % 2).request(rd(lineIn(0, k)), 1000) == 1000 + kIcnt + port * k + kL2 + tail(128) + kIcnt);
  const mem::HierarchyCounters d = h.counters() - before;
  CHECK(d.l2.hits == 4);
  CHECK(d.l2_port_queue_ps == (3 + 6 + 9) * 1000);  // waits of 4k - k cycles
}

TEST_CASE("tlm: DRAM keeps fractions of a picosecond over many transfers", "[mem][tlm]") {
  // 850 MHz x 32 B: a line takes 4705.88 ps; 17 of them exactly 80 000 ps.
  config::GpuConfig cfg = smallConfig();
  cfg.dram.clock_mhz = 850.0;
  cfg.dram.bus_bytes = 32;
  mem::MemoryHierarchy& h = fresh(cfg);
  const mem::HierarchyCounters before = h.counters();
  CHECK(h.channel(0).transferPs(128) == 4706);
  uint64_t last = 0;
  for (uint64_t n = 0; n < 17; ++n) last = h.port(0).request(rd(lineIn(0, n)), 0);
  // The first fetch starts at the first DRAM clock edge after (icnt + l2)
  // ns (clock 94, 110 588.2 ps); each later one waits for the bus: 68 clocks
  // in all, exactly 80 000 ps. Rounding every transfer up would end 17 ps
  // later.
  const uint64_t start_clock = ((kIcnt + kL2) * 1000 * 850000 + 999999999) / 1000000000;
  REQUIRE(start_clock == 94);
  const uint64_t data_ps = ((start_clock + 68) * 1000000000 + 849999) / 850000;  // 190 588.2 -> 190 589
  const uint64_t done_ps = data_ps + kDram * 1000 + (tail(128) + kIcnt) * 1000;
  CHECK(last == (done_ps + 999) / 1000);
  CHECK((h.counters() - before).dram_busy_ps == 80000);
}

TEST_CASE("tlm: the slice hash spreads strides that are multiples of the slice count", "[mem][tlm]") {
  for (uint32_t slices : {4u, 64u, 48u, 5u, 1u}) {
    INFO("slices " << slices);
    const mem::AddressMap map(slices, 128);
    const bool pow2 = (slices & (slices - 1)) == 0;
    // Strides in lines: the slice count and its multiples, powers of two
    // (matrix columns), and the neighbours of the slice count. With 2^k
    // slices (IPOLY) `slices` requests of a power-of-two stride take every
    // slice once; otherwise 2 x `slices` requests reach at least half.
    const std::vector<uint64_t> strides{1, 2, 16, 256, 1024, slices, 3ull * slices, slices + 1u,
                                        slices > 1 ? slices - 1u : 1u};
    for (uint64_t stride : strides) {
      for (uint64_t base : {0ull, 0x40000000ull}) {
        INFO("stride " << stride << " lines from " << base);
        const bool exact = pow2 && (stride & (stride - 1)) == 0;
        const uint64_t n = exact ? slices : 2 * slices;
        std::set<uint32_t> s;
        for (uint64_t i = 0; i < n; ++i) s.insert(map.sliceOf(base + i * stride * 128));
        if (exact)
          CHECK(s.size() == slices);
        else
          CHECK(s.size() >= (slices + 1) / 2);
      }
    }
    // One-to-one onto (slice, local line); offsets within a line ignored.
    for (uint64_t a = 0; a < 5000 * 128; a += 128 * 7 + 3) {
      const uint64_t line = a & ~uint64_t{127};
      REQUIRE(map.sliceOf(a) < slices);
      CHECK(map.lineAddr(map.sliceOf(a), map.localLine(a)) == line);
    }
  }
  // Through the crossbar: a stride of 4 lines reaches all four slices.
  mem::MemoryHierarchy& h = fresh();
  const mem::HierarchyCounters before = h.counters();
  for (uint64_t i = 0; i < 4; ++i) h.port(0).request(rd(i * 4 * 128), 0);
  const mem::HierarchyCounters d = h.counters() - before;
  for (uint32_t s = 0; s < 4; ++s) CHECK(d.slice_accesses[s] == 1);
  CHECK(h.sliceOf(3 * 4 * 128) == h.interconnect().addressMap().sliceOf(3 * 4 * 128));
}

TEST_CASE("tlm: writes are posted and dirty victims are written to DRAM", "[mem][tlm]") {
  mem::MemoryHierarchy& h = fresh();
  // A full-line write: 4 flits to the slice, acked a crossbar latency later.
  const uint64_t w = h.port(0).request(wr(lineIn(0, 0)), 0);
  CHECK(w == 0 + tail(128) + kIcnt + kIcnt);
  CHECK(w < h.port(1).request(rd(lineIn(1, 0)), 0));
  // Five lines of slice 0's set 0 (local lines 0, 8, 16...): the fifth write
  // evicts the first, dirty, line.
  const mem::HierarchyCounters before = h.counters();
  for (uint64_t k = 1; k <= 4; ++k) h.port(0).request(wr(lineIn(0, 8 * k), 0x3), 100 * k);
  const mem::HierarchyCounters d = h.counters() - before;
  CHECK(d.l2_evictions == 1);
  CHECK(d.l2_writebacks == 1);
  CHECK(d.dram_writes == 1);
  CHECK(d.dram_write_bytes == 128);
  CHECK(d.dram_reads == 0);  // stores write whole sectors: no fetch
  CHECK(d.icnt_request_bytes == 4 * 64);
  CHECK(d.icnt_reply_bytes == 0);
  CHECK(d.l2_by_kind[size_t(AccessKind::GlobalStore)].misses == 4);
  // The evicted line misses again.
  const mem::HierarchyCounters b2 = h.counters();
  h.port(0).request(rd(lineIn(0, 0)), 1000);
  CHECK((h.counters() - b2).l2.misses == 1);
}

TEST_CASE("tlm: functional warming leaves lines and dirty sectors with no time, traffic or count", "[mem][tlm]") {
  mem::MemoryHierarchy& h = fresh();
  const mem::HierarchyCounters before = h.counters();
  const uint64_t x = lineIn(1, 5), y = lineIn(0, 0);
  h.warmL2(x, 0x3, false);  // read: allocated and filled at once
  h.warmL2(y, 0xF, true);   // written: dirty
  const mem::HierarchyCounters d = h.counters() - before;
  CHECK(d.l2.accesses == 0);
  CHECK(d.dram_reads == 0);
  CHECK(d.dram_writes == 0);
  CHECK(h.idleAfter() == sc_core::SC_ZERO_TIME);
  const auto& c1 = h.slice(1).cache();
  const uint64_t local = h.interconnect().addressMap().localLine(x) * kC.l2.cache.line_bytes;
  CHECK(c1.validSectors(local) == 0x3);
  CHECK(c1.dirtySectors(local) == 0);
  CHECK(h.slice(0).cache().dirtySectors(0) == 0xF);
  // A timed read of the warmed sectors hits; of the others, misses.
  const mem::HierarchyCounters b2 = h.counters();
  CHECK(h.port(0).request(rd(x, 0x3), 1000) == 1000 + kIcnt + kL2 + tail(64) + kIcnt);
  h.port(0).request(rd(x, 0x4), 2000);
  const mem::HierarchyCounters d2 = h.counters() - b2;
  CHECK(d2.l2.hits == 1);
  CHECK(d2.l2.misses == 1);
  CHECK(d2.l2_sector_misses == 1);  // its line was there: no line placed
  // The warmed dirty line goes back to DRAM when a timed write evicts it
  // (four more lines of slice 0's set 0).
  const mem::HierarchyCounters b3 = h.counters();
  for (uint64_t k = 1; k <= 4; ++k) h.port(0).request(wr(lineIn(0, 8 * k), 0x3), 3000 + 100 * k);
  CHECK((h.counters() - b3).l2_writebacks == 1);
}

TEST_CASE("tlm: atomics are performed at the L2 and dirty the line", "[mem][tlm]") {
  mem::MemoryHierarchy& h = fresh();
  const mem::HierarchyCounters before = h.counters();
  const uint64_t x = lineIn(2, 3);
  // A cold one-sector atomic: operands over, fetch, old value back.
  CHECK(h.port(0).request(atom(x, 0x1), 0) == kIcnt + kL2 + xfer(32) + kDram + kIcnt);
  // Warm: the L2 latency only.
  CHECK(h.port(0).request(atom(x, 0x1), 500) == 500 + kIcnt + kL2 + kIcnt);
  const mem::L2Slice& s = h.slice(2);
  CHECK(s.cache().dirtySectors(3 * 128) == 0x1);  // slice-local address of local line 3
  const mem::HierarchyCounters c = h.counters() - before;
  CHECK(c.l2_by_kind[size_t(AccessKind::Atomic)].accesses == 2);  // the dirtying write is not a lookup
  CHECK(c.l2_by_kind[size_t(AccessKind::Atomic)].misses == 1);
  CHECK(c.l2_by_kind[size_t(AccessKind::Atomic)].hits == 1);
  CHECK(c.icnt_request_bytes == 64);
  CHECK(c.icnt_reply_bytes == 64);
}

TEST_CASE("tlm: MSHR-full requests wait for a fill and then bypass", "[mem][tlm]") {
  config::GpuConfig cfg = smallConfig();
  cfg.l2.mshr_entries = 1;
  mem::MemoryHierarchy& h = fresh(cfg);
  const mem::HierarchyCounters before = h.counters();
  const uint64_t a = lineIn(0, 0), b = lineIn(0, 1);
  const uint64_t fill_a = kIcnt + kL2 + xfer(128) + kDram;
  CHECK(h.port(0).request(rd(a), 0) == fill_a + tail(128) + kIcnt);
  // b finds no MSHR; it looks up again at a's fill and misses then.
  CHECK(h.port(1).request(rd(b), 0) == fill_a + kL2 + xfer(128) + kDram + tail(128) + kIcnt);
  mem::HierarchyCounters c = h.counters() - before;
  CHECK(c.l2.mshr_full == 1);
  CHECK(c.l2.misses == 2);
  CHECK(c.l2.accesses == 3);

  // Every way of set 0 waiting for a fill, and the earliest fill elsewhere:
  // the retry fails too and the read goes around the cache.
  cfg.l2.mshr_entries = 8;
  mem::MemoryHierarchy& g = fresh(cfg);
  const mem::HierarchyCounters before2 = g.counters();
  g.port(0).request(rd(lineIn(0, 1)), 0);                                // set 1, earliest fill
  for (uint64_t k = 0; k < 4; ++k) g.port(0).request(rd(lineIn(0, 8 * k)), 0);  // set 0, four ways
  const uint64_t bypass = g.port(1).request(rd(lineIn(0, 32)), 0);
  c = g.counters() - before2;
  CHECK(c.l2_bypasses == 1);
  CHECK(c.l2.mshr_full == 2);
  CHECK(bypass > fill_a + kL2);
  CHECK(g.slice(0).cache().validSectors(32 * 128) == 0);
  CHECK(g.slice(0).cache().pendingSectors(32 * 128) == 0);
}

TEST_CASE("tlm: counters subtract into per-kernel deltas", "[mem][tlm]") {
  mem::MemoryHierarchy& h = fresh();
  const mem::HierarchyCounters before = h.counters();
  h.port(0).request(rd(lineIn(1, 0), 0xF, AccessKind::LocalLoad), 0);
  h.port(0).request(wr(lineIn(1, 1), 0x1, AccessKind::LocalStore), 1);
  const mem::HierarchyCounters d = h.counters() - before;
  CHECK(d.l2.accesses == 2);
  CHECK(d.l2_by_kind[size_t(AccessKind::LocalLoad)].misses == 1);
  CHECK(d.l2_by_kind[size_t(AccessKind::LocalStore)].accesses == 1);
  const std::vector<uint64_t> per_slice{0, 2, 0, 0};
  CHECK(d.slice_accesses == per_slice);
  CHECK(d.icnt_requests == 2);
  CHECK(d.icnt_replies == 1);
  CHECK(d.icnt_reply_bytes == 128);
  CHECK(d.icnt_request_bytes == 32);
  CHECK(d.dram_read_bytes == 128);
  // A default snapshot counts as zero; mismatched slice counts are refused.
  CHECK((h.counters() - mem::HierarchyCounters{}).l2.accesses == h.counters().l2.accesses);
  mem::HierarchyCounters odd;
  odd.slice_accesses = {1, 2};
  CHECK_THROWS_AS(h.counters() - odd, Error);
}

TEST_CASE("tlm: reconfigure keeps a warm L2 unless the memory side changes", "[mem][tlm]") {
  mem::MemoryHierarchy& h = fresh();
  const uint64_t x = lineIn(0, 3);
  h.port(0).request(rd(x), 0);
  const uint64_t hit = kIcnt + kL2 + tail(128) + kIcnt;
  CHECK(h.port(0).request(rd(x), 1000) == 1000 + hit);
  // The same memory side (another SM parameter): still warm.
  config::GpuConfig same = smallConfig();
  same.pipeline.mem_latency = 7;
  h.reconfigure(same);
  CHECK(h.port(0).request(rd(x), 2000) == 2000 + hit);
  // Another L2 latency: rebuilt empty, and the new latency is used.
  config::GpuConfig slower = smallConfig();
  slower.l2.cache.latency = 150;
  h.reconfigure(slower);
  CHECK(h.slice(0).cache().validSectors(3 * 128) == 0);
  CHECK(h.port(0).request(rd(x), 3000) == 3000 + kIcnt + 150 + xfer(128) + kDram + tail(128) + kIcnt);
  // Counters survive a reconfigure (deltas stay non-negative).
  CHECK(h.counters().l2.accesses >= 4);
  // The shape cannot change; a bad configuration changes nothing.
  config::GpuConfig more = smallConfig();
  more.l2.num_slices = 8;
  CHECK_THROWS_AS(h.reconfigure(more), Error);
  config::GpuConfig bad = slower;
  bad.l2.cache.assoc = 3;  // 4 KiB per slice is not 3 x 128 x 2^n
  CHECK_THROWS_AS(h.reconfigure(bad), Error);
  CHECK(h.port(0).request(rd(x), 4000) == 4000 + kIcnt + 150 + tail(128) + kIcnt);
}

TEST_CASE("tlm: sameShape compares ports and slices and channels and clock", "[mem][tlm]") {
  const mem::MemoryHierarchy& h = world().h;
  config::GpuConfig c = smallConfig();
  CHECK(h.sameShape(c));
  CHECK(h.sameShape(c, 2));
  CHECK_FALSE(h.sameShape(c, 3));
  c.l2.cache.size_kb = 32;  // contents, not shape
  c.dram.latency = 999;
  CHECK(h.sameShape(c));
  config::GpuConfig d = smallConfig();
  d.gpu.num_sms = 4;
  CHECK_FALSE(h.sameShape(d));
  d = smallConfig();
  d.dram.num_channels = 4;
  CHECK_FALSE(h.sameShape(d));
  d = smallConfig();
  d.gpu.clock_mhz = 1500;
  CHECK_FALSE(h.sameShape(d));
  CHECK(world().hv.sameShape(config::GpuConfig{}));
}

// A DRAM clock edge of the v100 defaults (850 MHz) at or after `ps`, and
// back: cycles n <-> n x 1e9 / 850 000 ps, rounded up.
uint64_t dramEdge(uint64_t ps) { return (ps * 850000 + 999999999) / 1000000000; }
uint64_t dramPs(uint64_t clocks) { return (clocks * 1000000000 + 849999) / 850000; }

TEST_CASE("tlm: the V100 defaults give a sector's round trip", "[mem][tlm]") {
  mem::MemoryHierarchy& h = world().hv;
  h.reset();
  const config::GpuConfig c;
  const uint64_t p = 883;  // round(1e6 / 1132) ps
  REQUIRE(h.periodPs() == p);
  // The fetch reaches DRAM at the next 850 MHz edge after the crossbar and
  // the L2 lookup; its bank is precharged: ACT, t_rcd, READ, t_cl, then one
  // clock of 32 B; then dram.latency and the crossbar back.
  const uint64_t act = dramEdge((c.icnt.latency + c.l2.cache.latency) * p);
  const uint64_t data_end = act + c.dram.t_rcd + c.dram.t_cl + 1;
  const uint64_t miss_ps = dramPs(data_end) + (c.dram.latency + c.icnt.latency) * p;
  const uint64_t x = 0x12345680;
  CHECK(h.port(79).request(rd(x, 0x4), 0) == (miss_ps + p - 1) / p);
  CHECK(h.port(0).request(rd(x, 0x4), 1000) == 1000 + c.icnt.latency + c.l2.cache.latency + c.icnt.latency);
}

TEST_CASE("tlm: an SmPort sends a timing-only generic payload", "[mem][tlm]") {
  World& w = world();
  Probe& p = w.probe;
  p.error = false;
  p.add_ps = 2500;
  w.port.setOrigin(sc_core::SC_ZERO_TIME);
  CHECK(w.port.request(rd(0x4000, 0x5, AccessKind::LocalLoad), 7) == 10);  // 7 ns + 2.5 ns -> edge 10
  CHECK(p.cmd == tlm::TLM_READ_COMMAND);
  CHECK(p.addr == 0x4000);
  CHECK(p.len == 64);
  CHECK(p.width == 64);
  CHECK(p.data);
  CHECK_FALSE(p.byte_enables);
  CHECK(p.delay_in_ps == 7000);
  CHECK(p.ext.sector_mask == 0x5);
  CHECK(p.ext.kind == AccessKind::LocalLoad);
  CHECK(p.ext.sm == 3);
  CHECK_FALSE(p.ext.atomic);

  w.port.request(wr(0x4080, 0xF), 1);
  CHECK(p.cmd == tlm::TLM_WRITE_COMMAND);
  CHECK(p.len == 128);
  CHECK_FALSE(p.ext.atomic);
  w.port.request(atom(0x4100, 0x8), 1);
  CHECK(p.cmd == tlm::TLM_WRITE_COMMAND);
  CHECK(p.len == 32);
  CHECK(p.ext.atomic);
  CHECK(p.ext.kind == AccessKind::Atomic);

  // The origin moves the annotated delay; a reply is always after `now`.
  w.port.setOrigin(sc_core::sc_time(100, sc_core::SC_NS));
  p.add_ps = 0;
  CHECK(w.port.request(rd(0x4000), 4) == 5);
  CHECK(p.delay_in_ps == 104000);

  // An error response and an empty mask are the caller's errors.
  p.error = true;
  CHECK_THROWS_WITH(w.port.request(rd(0xabc00), 0), Catch::Contains("0xabc00"));
  p.error = false;
  CHECK_THROWS_AS(w.port.request(rd(0x4000, 0), 0), Error);
  CHECK_THROWS_AS(world().h.port(0).request(rd(0x4000, 0), 0), Error);
  CHECK_THROWS_AS(world().h.port(2), Error);
}

TEST_CASE("tlm: statistics of a kernel with units and rates", "[mem][tlm]") {
  mem::MemoryHierarchy& h = fresh();
  const mem::HierarchyCounters before = h.counters();
  const uint64_t x = lineIn(0, 4);
  h.port(0).request(rd(x), 0);
  h.port(0).request(rd(x), 1000);
  h.port(0).request(wr(lineIn(1, 4)), 1001);
  const mem::HierarchyCounters d = h.counters() - before;

  stats::Group root(nullptr, "root");
  mem::HierarchyStats s(&root, "mem", smallConfig());
  const uint64_t cycles = 2000;
  s.set(d, cycles);
  CHECK(s.l2Misses() == 2);  // the read's, and the store's (a write-allocate miss, no fetch)
  CHECK(s.l2.accesses.get() == 3);
  CHECK(s.l2.hit_rate.get() == Approx(1.0 / 3.0));
  CHECK(s.l2.hits_by_kind[size_t(AccessKind::GlobalLoad)] == 1);
  CHECK(s.dram.read_bytes.get() == 128);
  // Peak: 2 channels x 16 B x (500 / 1000) x 2000 cycles = 32 000 B.
  CHECK(s.dram.bandwidth_utilisation.get() == Approx(128.0 / 32000.0));
  // 128 B in 2000 ns = 0.064 GB/s.
  CHECK(s.dram.achieved_gbps.get() == Approx(0.064));
  CHECK(s.dram.busy_cycles.get() == xfer(128));
  CHECK(s.icnt.bytes.get() == 2 * 128 + 128);
  const nlohmann::json j = stats::toFlatJson(root);
  CHECK(j.at("root.mem.l2.misses") == 2);
  CHECK(j.at("root.mem.l2.accesses_by_kind").at("global_load") == 2);
  CHECK(j.contains("root.mem.icnt.reply_queue_cycles"));
  CHECK(j.at("root.mem.dram.bandwidth_utilisation") == Approx(128.0 / 32000.0));
  // Every statistic has a unit and a description.
  std::vector<const stats::Group*> todo{&s};
  while (!todo.empty()) {
    const stats::Group* g = todo.back();
    todo.pop_back();
    for (const stats::Info* i : g->stats()) {
      INFO(g->name() << "." << i->name());
      CHECK_FALSE(i->unit().empty());
      CHECK_FALSE(i->desc().empty());
    }
    for (const stats::Group* c : g->children()) todo.push_back(c);
  }
}

TEST_CASE("tlm: configurations the hierarchy cannot build are refused by name", "[mem][tlm]") {
  world();  // elaboration is over: no module can be created any more
  config::GpuConfig c = smallConfig();
  CHECK_THROWS_WITH(mem::MemoryHierarchy("late", c, 2), Catch::Contains("elaboration"));
  c.l1d.line_bytes = 64;
  CHECK_THROWS_WITH(world().h.reconfigure(c), Catch::Contains("line_bytes"));
  c = smallConfig();
  c.l2.num_slices = 4;
  c.dram.num_channels = 3;
  CHECK_THROWS_AS(world().h.reconfigure(c), Error);  // a shape change
  CHECK_THROWS_AS(mem::AddressMap(0, 128), Error);
  CHECK_THROWS_AS(mem::AddressMap(4, 96), Error);
}

TEST_CASE("BusyQueue: a request stamped far ahead leaves the idle time before it to earlier ones", "[mem][tlm]") {
  // Within one quantum (min_gap_ps) requests keep the order of the calls;
  // a gap of at least a quantum stays usable by requests that arrive before
  // it (an L1D that waited for an MSHR sends far ahead of the others).
  mem::BusyQueue q{0, {100, {}}};
  CHECK(q.reserve(0, 10) == 0);        // busy until 10
  CHECK(q.reserve(1000, 10) == 1000);  // far ahead: [10, 1000) stays idle
  CHECK(q.reserve(20, 10) == 20);      // an earlier request takes the gap
  CHECK(q.reserve(25, 10) == 30);      // and the next one after it
  CHECK(q.reserve(995, 10) == 1010);   // no room left before 1000: after the late one
  // A gap shorter than a quantum is not kept: call order as before.
  mem::BusyQueue r{0, {100, {}}};
  CHECK(r.reserve(0, 10) == 0);
  CHECK(r.reserve(50, 10) == 50);  // 40 idle, under a quantum
  CHECK(r.reserve(20, 10) == 60);  // served after the later-stamped one
  // Gaps that end before the horizon (the simulation time) are forgotten.
  mem::BusyQueue h{0, {100, {}}};
  h.reserve(0, 10);
  h.reserve(1000, 10);
  CHECK(h.reserve(20, 10, 2000) == 1010);
  CHECK(h.idle.gaps.empty());
}

TEST_CASE("tlm: host memory is reached over the host link, not the L2", "[mem][tlm]") {
  config::GpuConfig c = smallConfig();
  c.host_link.latency_ns = 100.0;  // 100 cycles at 1 GHz
  c.host_link.bytes_per_ns = 32.0;  // a 128-byte line takes 4 cycles
  mem::MemoryHierarchy& h = fresh(c);
  const mem::HierarchyCounters before = h.counters();
  const uint64_t x = func::kHostWindow + 0x1000;
  // Read: crossbar, the round trip, the line on the link, reply flits, crossbar.
  CHECK(h.port(0).request(rd(x), 7) == 7 + kIcnt + 100 + 4 + tail(128) + kIcnt);
  // A second read at once waits for the first one's data on the link.
  CHECK(h.port(1).request(rd(x + 128), 7) == 7 + kIcnt + 100 + 4 + 4 + tail(128) + kIcnt);
  // A write is posted: acknowledged once its data is on the link.
  CHECK(h.port(0).request(wr(x + 256), 500) == 500 + kIcnt + 4 + kIcnt);
  // An atomic: its operands out, the old values back a round trip later.
  CHECK(h.port(0).request(atom(x + 384, 0x1), 1000) == 1000 + kIcnt + 1 + 100 + 1 + kIcnt);
  const mem::HierarchyCounters d = h.counters() - before;
  CHECK(d.host_reads == 2);
  CHECK(d.host_writes == 1);
  CHECK(d.host_atomics == 1);
  CHECK(d.host_read_bytes == 2 * 128 + 32);
  CHECK(d.host_write_bytes == 128 + 32);
  CHECK(d.l2.accesses == 0);
  CHECK(d.icnt_requests == 0);

  stats::Group root(nullptr, "root");
  mem::HierarchyStats s(&root, "mem", c);
  s.set(d, 2000);
  CHECK(s.host.requests.get() == 4);
  CHECK(s.host.bytes.get() == 2 * 128 + 32 + 128 + 32);
}
