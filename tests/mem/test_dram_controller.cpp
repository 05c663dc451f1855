// A DRAM channel's controller (mem/tlm/dram_controller.h) on directed
// traffic: row hit, row miss and conflict latency, bank conflicts against
// bank parallelism, FR-FCFS serving a younger row hit before an older row
// miss (and FCFS not), the queue depth bounding that, tRRD and tFAW spacing
// activations, an activate placed before an earlier-placed one, a request
// called later but arriving earlier served in its bank's idle time,
// write-to-read and read-to-write turnarounds, and the bandwidth of a
// stream against the bus's.
#include <set>
#include <catch2/catch.hpp>

#include <vector>

#include "config/gpu_config.h"
#include "mem/tlm/dram_controller.h"

using namespace rfsim;
using mem::DramController;

namespace {

// One channel behind one slice, DRAM and core at 1 GHz: a DRAM clock and a
// core cycle are 1 ns, and the channel's line number is the address / 128.
// 32 B per clock: a 128 B line holds the bus 4 clocks. 4 banks in 2 groups,
// rows of 1 KiB (8 lines).
config::GpuConfig oneChannel() {
  config::GpuConfig c;
  c.gpu.clock_mhz = 1000.0;
  c.l2.num_slices = 1;
  c.dram.num_channels = 1;
  c.dram.clock_mhz = 1000.0;
  c.dram.bus_bytes = 32;
  c.dram.latency = 10;
  c.dram.banks = 4;
  c.dram.bank_groups = 2;
  c.dram.row_bytes = 1024;
  c.dram.t_rcd = 10;
  c.dram.t_rp = 10;
  c.dram.t_ras = 25;
  c.dram.t_cl = 10;
  c.dram.t_cwl = 4;
  c.dram.t_ccd_s = 2;
  c.dram.t_ccd_l = 4;
  c.dram.t_rrd = 5;
  c.dram.t_faw = 30;
  c.dram.t_wtr = 6;
  c.dram.t_rtw = 2;
  c.dram.t_wr = 8;
  c.dram.t_rtp = 4;
  c.dram.queue_depth = 64;
  c.dram.bank_map = config::DramBankMap::Rotate;  // the directed tests place lines through at()'s inverse
  return c;
}

// The address of `column` in `row` of `bank` (the controller's mapping
// inverted: bank = (stripe + row) mod banks).
uint64_t at(const config::GpuConfig& c, uint32_t bank, uint64_t row, uint64_t column) {
  const uint64_t banks = c.dram.banks, lines = c.dram.row_bytes / 128;
  const uint64_t stripe = row * banks + (bank + banks - row % banks) % banks;
  return (stripe * lines + column) * 128;
}

constexpr uint64_t ns = 1000;  // ps

struct Chan {
  config::GpuConfig cfg;
  DramController d;
  explicit Chan(const config::GpuConfig& c = oneChannel()) : cfg(c), d(c) {}
  // Done time in ns of a line read / write arriving at `t` ns (called at t).
  uint64_t rd(uint32_t bank, uint64_t row, uint64_t column, uint64_t t) {
    return d.access(at(cfg, bank, row, column), 128, true, t * ns, t * ns) / ns;
  }
  uint64_t wr(uint32_t bank, uint64_t row, uint64_t column, uint64_t t) {
    return d.access(at(cfg, bank, row, column), 128, false, t * ns, t * ns) / ns;
  }
};

}  // namespace

TEST_CASE("dram: the mapping puts a row's lines in one bank and rotates banks by row", "[mem][dram]") {
  const config::GpuConfig c = oneChannel();
  const DramController d(c);
  for (uint32_t bank = 0; bank < 4; ++bank)
    for (uint64_t row = 0; row < 5; ++row)
      for (uint64_t col : {0u, 7u}) {
        const auto p = d.place(at(c, bank, row, col));
        CHECK(p.bank == bank);
        CHECK(p.row == row);
        CHECK(p.column == col);
        CHECK(p.group == bank % 2);
      }
  // Lines 0-7 are row 0 of bank 0, lines 8-15 row 0 of bank 1; row 1 starts
  // in bank 1.
  CHECK(d.place(8 * 128).bank == 1);
  CHECK(d.place(32 * 128).bank == 1);
  CHECK(d.place(32 * 128).row == 1);
}

TEST_CASE("dram: bank_map xor spreads rows a multiple of the banks apart", "[mem][dram]") {
  config::GpuConfig c = oneChannel();  // 4 banks, 8 lines a row
  const uint64_t lines = c.dram.row_bytes / 128, banks = c.dram.banks;
  // The same place in rows 0, 4, 8, ... (a stride of banks x banks rows' worth
  // of lines, as per-warp local regions a power of two apart make).
  auto bankOf = [&](const DramController& d, uint64_t row, uint64_t stripe_in_row) {
    return d.place((row * banks + stripe_in_row) * lines * 128).bank;
  };
  {
    const DramController d(c);  // rotate: every such row in one bank
    for (uint64_t k = 0; k < 8; ++k) CHECK(bankOf(d, k * banks, 1) == bankOf(d, 0, 1));
  }
  c.dram.bank_map = config::DramBankMap::Xor;
  const DramController d(c);
  std::set<uint32_t> seen;
  for (uint64_t k = 0; k < 4; ++k) seen.insert(bankOf(d, k * banks, 1));
  CHECK(seen.size() == banks);
  // Within a row's stripes the map stays a permutation of the banks, and the
  // row and column are the rotate map's.
  for (uint64_t row = 0; row < 40; ++row) {
    std::set<uint32_t> b;
    for (uint64_t s = 0; s < banks; ++s) {
      const auto p = d.place(((row * banks + s) * lines + 3) * 128);
      CHECK(p.row == row);
      CHECK(p.column == 3);
      CHECK(p.group == p.bank % 2);
      b.insert(p.bank);
    }
    CHECK(b.size() == banks);
  }
  // Not a power of two: the row's base-6 digits summed.
  c.dram.banks = 6;
  c.dram.bank_groups = 3;
  const DramController d6(c);
  std::set<uint32_t> seen6;
  for (uint64_t k = 0; k < 6; ++k) seen6.insert(d6.place((k * 6 * 6 + 1) * lines * 128).bank);
  CHECK(seen6.size() == 6);
  // One bank: every line in bank 0, under either map.
  c.dram.banks = 1;
  c.dram.bank_groups = 1;
  for (const auto m : {config::DramBankMap::Xor, config::DramBankMap::Rotate}) {
    c.dram.bank_map = m;
    const DramController d1(c);
    for (uint64_t line : {0u, 9u, 4096u}) {
      CHECK(d1.place(line * 128).bank == 0);
      CHECK(d1.place(line * 128).row == line / lines);
    }
  }
}

TEST_CASE("dram: row miss, row hit and row conflict latencies", "[mem][dram]") {
  Chan ch;
  // Precharged bank: ACT at 0, READ at t_rcd, data at + t_cl for 4 clocks,
  // then dram.latency: 10 + 10 + 4 + 10.
  CHECK(ch.rd(0, 0, 0, 0) == 34);
  // The row is open: READ at arrival.
  CHECK(ch.rd(0, 0, 1, 1000) == 1000 + 10 + 4 + 10);
  // Another row: PRE, t_rp, ACT, t_rcd, READ.
  CHECK(ch.rd(0, 1, 0, 2000) == 2000 + 10 + 10 + 10 + 4 + 10);
  const auto& k = ch.d.counters();
  CHECK(k.row_misses == 1);
  CHECK(k.row_hits == 1);
  CHECK(k.row_conflicts == 1);
  CHECK(k.reads == 3);
  CHECK(k.read_bytes == 3 * 128);
  CHECK(k.busy_ps == 3 * 4 * ns);
  CHECK(k.queue_ps == 0);  // unloaded: each at its row state's own latency
}

TEST_CASE("dram: two rows of one bank serialise, two banks overlap", "[mem][dram]") {
  Chan same;
  CHECK(same.rd(0, 0, 0, 0) == 34);
  // PRE waits for t_ras after the first ACT (25), ACT at 35, READ at 45,
  // data 55..59.
  CHECK(same.rd(0, 1, 0, 0) == 69);
  Chan other;
  CHECK(other.rd(0, 0, 0, 0) == 34);
  // ACT t_rrd after the first (5), READ at 15, data 25..29.
  CHECK(other.rd(1, 0, 0, 0) == 39);
  CHECK(same.d.counters().row_conflicts == 1);
  CHECK(other.d.counters().row_misses == 2);
}

TEST_CASE("dram: FR-FCFS serves a younger row hit before an older row miss, FCFS after it", "[mem][dram]") {
  // A opens row 0 of bank 0; M (older) needs row 1 of bank 0 and must wait
  // for t_ras to precharge; H (younger) reads row 0, still open.
  Chan fr;
  CHECK(fr.rd(0, 0, 0, 0) == 34);
  const uint64_t m_fr = fr.rd(0, 1, 0, 1);
  const uint64_t h_fr = fr.rd(0, 0, 2, 2);
  CHECK(m_fr == 69);  // PRE 25, ACT 35, READ 45, data 55..59
  // H: READ t_ccd_l after A's (14), data 24..28, before M's precharge.
  CHECK(h_fr == 38);
  CHECK(h_fr < m_fr);
  CHECK(fr.d.counters().row_hits == 1);

  config::GpuConfig c = oneChannel();
  c.dram.scheduler = config::DramScheduler::Fcfs;
  Chan fc(c);
  CHECK(fc.rd(0, 0, 0, 0) == 34);
  CHECK(fc.rd(0, 1, 0, 1) == 69);
  // H after M: row 1 is open now, so H is a conflict: PRE at M's ACT +
  // t_ras (60), ACT 70, READ 80, data 90..94.
  CHECK(fc.rd(0, 0, 2, 2) == 104);
  CHECK(fc.d.counters().row_hits == 0);
  CHECK(fc.d.counters().row_conflicts == 2);
}

TEST_CASE("dram: the queue depth bounds what the scheduler can reorder", "[mem][dram]") {
  // As above with room for one request: H enters only when M's READ
  // leaves (45), after the precharge that closed its row.
  config::GpuConfig c = oneChannel();
  c.dram.queue_depth = 1;
  Chan ch(c);
  CHECK(ch.rd(0, 0, 0, 0) == 34);
  CHECK(ch.rd(0, 1, 0, 1) == 69);
  CHECK(ch.rd(0, 0, 2, 2) > 69);
  CHECK(ch.d.counters().row_hits == 0);
  CHECK(ch.d.counters().queue_ps > 0);
}

TEST_CASE("dram: tRRD and tFAW space activations", "[mem][dram]") {
  config::GpuConfig c = oneChannel();
  c.dram.banks = 8;
  std::vector<uint64_t> done;
  {
    Chan ch(c);
    for (uint32_t b = 0; b < 6; ++b) done.push_back(ch.rd(b, 0, 0, 0));
  }
  // ACTs at 0, 5, 10, 15 (t_rrd), then the fifth waits for the first + t_faw
  // (30), the sixth for the second + t_faw (35); data t_rcd + t_cl later.
  CHECK(done == std::vector<uint64_t>{34, 39, 44, 49, 64, 69});
  c.dram.t_faw = 0;
  done.clear();
  Chan ch(c);
  for (uint32_t b = 0; b < 6; ++b) done.push_back(ch.rd(b, 0, 0, 0));
  CHECK(done == std::vector<uint64_t>{34, 39, 44, 49, 54, 59});
}

TEST_CASE("dram: a bank's activate goes before one placed earlier that waits for t_ras", "[mem][dram]") {
  Chan ch;
  CHECK(ch.rd(0, 0, 0, 0) == 34);
  CHECK(ch.rd(0, 1, 0, 1) == 69);  // conflict: its ACT at 35 (t_ras, t_rp)
  // Bank 2 (precharged, the same bank group as bank 0) activates at 5, t_rrd
  // after the first ACT, and reads at 15 into the bus's idle time: data
  // 25..29.
  CHECK(ch.rd(2, 0, 0, 2) == 39);
}

TEST_CASE("dram: write-to-read and read-to-write turnarounds", "[mem][dram]") {
  {
    // Write: ACT 0, WRITE 10, data 14..18; the read in another bank (ACT 5)
    // may not issue before the write data's end + t_wtr (24): data 34..38.
    Chan ch;
    CHECK(ch.wr(0, 0, 0, 0) == 28);
    CHECK(ch.rd(1, 0, 0, 0) == 48);
    config::GpuConfig c = oneChannel();
    c.dram.t_wtr = 0;
    Chan free(c);
    CHECK(free.wr(0, 0, 0, 0) == 28);
    CHECK(free.rd(1, 0, 0, 0) == 42);  // READ at the write data's end (18)
  }
  {
    // Read data 20..24; the write's data (WRITE at 15 + t_cwl = 19) waits
    // for t_rtw idle clocks after it: 26..30.
    Chan ch;
    CHECK(ch.rd(0, 0, 0, 0) == 34);
    CHECK(ch.wr(1, 0, 0, 0) == 40);
    CHECK(ch.d.counters().writes == 1);
    CHECK(ch.d.counters().write_bytes == 128);
  }
}

TEST_CASE("dram: a stream's bandwidth is the bus's times a measured efficiency", "[mem][dram]") {
  // 4096 consecutive lines requested as fast as the controller takes them
  // (all at time 0, the queue admitting them as READs leave): row hits but
  // for one ACT per row of 8 lines, which the other banks' transfers hide.
  for (const bool write : {false, true}) {
    INFO((write ? "writes" : "reads"));
    Chan ch;
    uint64_t end = 0;
    const uint64_t n = 4096;
    for (uint64_t i = 0; i < n; ++i) end = std::max(end, ch.d.access(i * 128, 128, !write, 0, 0));
    const double cycles = double(end) / ns - 10 /* latency */ - (write ? 14 : 20) /* first ACT to data */;
    const double efficiency = double(n * 128) / (32.0 * cycles);
    CHECK(efficiency == Approx(1.0).margin(0.001));
    CHECK(ch.d.counters().row_misses + ch.d.counters().row_conflicts == n / 8);
  }
  // Reads and writes alternating line by line (the same rows) pay both
  // turnarounds on every switch: per pair, 4 + 4 clocks of data, t_rtw (2)
  // idle clocks before the write data, and t_wtr (6) + t_cl (10) from the
  // write data's end to the next read's data: 8 of 26 clocks.
  Chan mixed;
  uint64_t end = 0;
  const uint64_t n = 1024;
  for (uint64_t i = 0; i < n; ++i) end = std::max(end, mixed.d.access(i * 128, 128, i % 2 == 0, 0, 0));
  const double efficiency = double(n * 128) / (32.0 * (double(end) / ns - 10 - 20));
  CHECK(efficiency == Approx(8.0 / 26.0).margin(0.001));
}

TEST_CASE("dram: the v100 defaults' row hit, miss and conflict latencies", "[mem][dram]") {
  // HBM2 at 850 MHz (1176.5 ps clocks), a 32 B sector: one clock of data.
  const config::GpuConfig c;
  DramController d(c);
  // A line x, another line of its row (y), a line of another row of its
  // bank (z), all of x's channel (the controller numbers its own lines).
  const uint64_t x = 0x40000000;
  const auto px = d.place(x);
  uint64_t y = 0, z = 0;
  for (uint64_t a = x + 128; y == 0 || z == 0; a += 128) {
    const auto pa = d.place(a);
    if (pa.bank != px.bank) continue;
    if (pa.row == px.row && y == 0) y = a;
    if (pa.row != px.row && z == 0) z = a;
  }
  // Each 1 us after the one before, on a DRAM clock edge (850 000 x 1 ns).
  const auto latency = [&](uint64_t line, uint64_t t) { return d.access(line, 32, true, t, t) - t; };
  const uint64_t miss = latency(x, 1000000), hit = latency(y, 2000000), conflict = latency(z, 3000000);
  const auto ps = [](uint64_t clocks) { return (clocks * 1000000000 + 849999) / 850000; };
  const uint64_t fixed = uint64_t{c.dram.latency} * 883;  // core cycles of 883 ps
  CHECK(hit == ps(c.dram.t_cl + 1) + fixed);
  CHECK(miss == ps(c.dram.t_rcd + c.dram.t_cl + 1) + fixed);
  CHECK(conflict == ps(c.dram.t_rp + c.dram.t_rcd + c.dram.t_cl + 1) + fixed);
  const auto k = d.counters();
  CHECK(k.row_hits == 1);
  CHECK(k.row_misses == 1);
  CHECK(k.row_conflicts == 1);
}

TEST_CASE("dram: a request called later but arriving earlier uses the bank's idle time before what is placed", "[mem][dram]") {
  // Loosely timed: the first call arrives at 1000 (stamped far ahead), the
  // second, called at the same time, arrives at 0 for another row of the
  // same bank. It is served in the bank's idle time before the first (its
  // own window, closed by 1000 - t_rp), not behind it.
  Chan ch;
  CHECK(ch.d.access(at(ch.cfg, 0, 1, 0), 128, true, 1000 * ns, 0) / ns == 1034);
  CHECK(ch.d.access(at(ch.cfg, 0, 0, 0), 128, true, 0, 0) / ns == 34);
  // A third, for the first's row, arriving at 500, finds the bank precharged
  // (the second's window closed at 25) and gets a window of its own, sooner
  // than joining the first's (opened at 1000 for a request that arrives
  // later); it closes by 525, before the first's ACT needs the bank.
  CHECK(ch.d.access(at(ch.cfg, 0, 1, 1), 128, true, 500 * ns, 0) / ns == 534);
  CHECK(ch.d.counters().row_misses == 3);
  CHECK(ch.d.counters().row_conflicts == 0);
}
