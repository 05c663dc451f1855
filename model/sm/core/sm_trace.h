// A VCD waveform of one SM's pipeline (SM 0 of `rfsim run --workload X
// --timing --trace FILE.vcd`), with a GTKWave save file beside it (FILE.gtkw)
// that opens it grouped by stage. See docs/waveforms.md "SM pipeline trace".
//
// A small VCD writer of its own, not SystemC's sc_trace: the GPU top is
// created lazily (at the first timing launch) and SystemC only accepts trace
// files before the first sc_start(), which a second Device / workload in the
// same process is past; and the Sm is plain C++ ticked by its slot, so the
// writer works in KernelRunner's loop mode too.
//
// Time: one VCD time unit (declared 1 ns) is one SM cycle of the TRACE
// clock, which counts every tick of the traced Sm over the whole run: launch
// after launch (and Device after Device) follow each other without gaps, so
// trace cycle = the sum of the earlier launches' cycles + the launch's own
// cycle. Only ticks whose trace cycle lies in the window [first, last] are
// recorded; outside it the Sm pays one branch per tick.
//
// Per recorded cycle (values after the tick):
//   fetch   ibuf_fills (I-buffer fills started), l1i_misses (of those, fills
//           that missed a line in the L1I)
//   issue   per scheduler i: s<i>_warp (issued warp slot, -1 = none),
//           s<i>_pc / s<i>_op (ptx::Op code) / s<i>_unit (UnitType: 0 sp,
//           1 int, 2 sfu, 3 dp, 4 ldst) of the instruction issued (kept
//           from the last issue while none issues), s<i>_stall (Stall code:
//           0 none = issued, 1 no warp, 2 barrier, 3 I-buffer empty,
//           4 scoreboard, 5 collector full, 6 unit busy, 7+ an IssueGate's)
//   opcoll  busy_collectors, bank_conflicts, rf_reads, rf_writes (this cycle)
//   exec    completed (instructions written back), wb_refused (writebacks
//           refused a write port, retried next cycle)
// Every issued warp instruction shows as one cycle with s<i>_warp != -1 on
// its scheduler (no dual issue): the number of such scheduler-cycles in the
// window is the SM's warp instructions issued in the window.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "common/gtkw.h"

namespace rfsim::sm {

class SmTrace {
 public:
  // The default window when no last cycle is given: this many cycles.
  static constexpr uint64_t kDefaultMaxCycles = 200000;

  struct Sched {
    int32_t warp = -1;
    uint32_t pc = 0, op = 0, unit = 0, stall = 0;
  };
  struct Sample {
    uint32_t ibuf_fills = 0, l1i_misses = 0;
    std::vector<Sched> sched;
    uint32_t busy_collectors = 0, bank_conflicts = 0, rf_reads = 0, rf_writes = 0;
    uint32_t completed = 0, wb_refused = 0;
  };

  // Opens `vcd` (and writes `vcd` with .gtkw for .vcd beside it at close).
  // Window [first, last] in trace cycles; last = UINT64_MAX: first +
  // kDefaultMaxCycles - 1. Throws rfsim::Error when the file cannot be opened
  // or last < first.
  SmTrace(const std::filesystem::path& vcd, uint32_t num_schedulers, uint64_t first = 0,
          uint64_t last = UINT64_MAX);
  ~SmTrace();
  SmTrace(const SmTrace&) = delete;
  SmTrace& operator=(const SmTrace&) = delete;

  // The Sm's per-tick interface: inWindow() says whether the current trace
  // cycle is recorded; then record() (else skip()) ends the cycle.
  bool inWindow() const { return cycle_ >= first_ && cycle_ <= last_; }
  uint32_t numSchedulers() const { return nsched_; }
  void record(const Sample& s);
  void skip() { ++cycle_; }

  // Writes the final time stamp and the .gtkw; idempotent (the destructor calls it).
  void close();

  uint64_t cycle() const { return cycle_; }  // the next trace cycle
  uint64_t first() const { return first_; }
  uint64_t last() const { return last_; }
  uint64_t recordedCycles() const { return recorded_; }
  uint64_t issuesRecorded() const { return issues_; }
  const std::filesystem::path& vcdPath() const { return vcd_; }
  std::filesystem::path gtkwPath() const;
  // The save file's view (groups by stage).
  GtkwView view() const;

  // Parses "FIRST:LAST" (either may be empty: 0 / the default cap).
  static void parseWindow(const std::string& spec, uint64_t& first, uint64_t& last);

 private:
  struct Var {
    std::string scope, name, id;
    uint32_t width;
    bool is_signed;
  };
  void header();
  uint32_t addVar(const std::string& scope, const std::string& name, uint32_t width, bool is_signed = false);
  void put(std::string& out, uint32_t var, uint64_t value);

  std::filesystem::path vcd_;
  std::FILE* f_ = nullptr;
  uint32_t nsched_;
  uint64_t first_, last_, cycle_ = 0, recorded_ = 0, issues_ = 0, last_time_ = 0;
  std::vector<Var> vars_;
  std::vector<uint64_t> prev_;
  bool any_ = false, closed_ = false;
  std::string buf_;
};

}  // namespace rfsim::sm
