// The controller of one DRAM channel in plain C++ (DramChannel, tlm/, is its
// TLM-2.0 target): banks (in bank groups) with row buffers, the main timing
// constraints and an FR-FCFS or FCFS scheduler.
// Times inside are DRAM clock cycles (dram.clock_mhz); a request's arrival
// is rounded up to the next DRAM clock edge, its reply converted back to ps.
//
// Address mapping. The channel numbers its lines L = (the line's number in
// its L2 slice) x S/C + (the slice's place among the channel's S/C slices),
// so a stream through memory walks L upwards. With R = dram.row_bytes / line
// bytes lines per row, B = dram.banks, G = dram.bank_groups:
//   column = L mod R
//   row    = L / (R x B)
//   bank   = ((L / R) + row) mod B             (the row rotates the bank, as
//            permutation-based interleaving, Zhang et al., MICRO 2000, does
//            with XOR: strides of R x B lines spread over the banks)
//   group  = bank mod G                        (consecutive rows alternate
//            groups, so a stream pays tCCD_S between them)
//
// Timing of a request (one column command moving its bytes in
// ceil(bytes / dram.bus_bytes) clocks; the data bus is held for at least
// tCCD_S), t_* keys in DRAM clocks:
//   row hit   (its row open):       COL >= arrival
//   row miss  (bank precharged):    ACT >= arrival, COL >= ACT + t_rcd
//   conflict  (another row open):   PRE >= arrival, ACT >= PRE + t_rp, COL >= ACT + t_rcd
//   PRE  >= ACT + t_ras, last read + t_rtp, end of last write data + t_wr
//   ACT  no closer than t_rrd to another ACT; at most four in any t_faw
//   COL  >= same group's last COL + t_ccd_l; the channel's COLs t_ccd_s
//           apart (each transfer holds the bus at least t_ccd_s)
//   read  COL >= end of the channel's last write data + t_wtr; data at COL + t_cl
//   write data (at COL + t_cwl) >= end of the last read data + t_rtw
//   reply = end of the data + dram.latency core cycles (controller and PHY).
// A command placed before later-placed ones (a row hit in an earlier window,
// data in an idle bus slot) is checked against its own bank's commands, the
// turnaround after the latest data and the bus; t_ccd_l against its group's
// latest column command only, when it would come after or within t_ccd_l
// before it.
// Refresh is not modelled (a few per cent of the time: tRFC / tREFI);
// nor the command bus (HBM's separate row and column buses issue a row and a
// column command per clock; one command per clock per bus is not checked).
//
// Scheduling under loosely-timed transport. A request's reply time must be
// known when b_transport returns, so a request answered once is never
// delayed by a later one. Requests are placed in call order, each at the
// earliest time the commands already placed allow:
//  * frfcfs: a request whose row is open in some window (the bank's current
//    row, or the row its last precharge closed) is served as a row hit in
//    that window if its column command and data fit before the precharge
//    already placed; its data may take an idle slot of the bus that an
//    older request left (an older row miss waiting for its ACT; slots
//    shorter than a line are not kept). So a younger row hit
//    is served before an older row miss, and otherwise the oldest goes
//    first. What real FR-FCFS does beyond this -- holding an
//    older miss back while younger hits keep coming -- is not modelled.
//  * fcfs: column commands in call order (none before the channel's last
//    one; row commands of different banks still overlap); a row hit only on
//    the bank's current row.
//  * dram.queue_depth requests wait in the controller at most: a request
//    that finds it full (counted by the column commands still to come at
//    its arrival) waits until one leaves.
// An ACT may be placed before ACTs placed earlier (another bank waiting for
// t_ras), as long as t_rrd and t_faw hold around it. A bank remembers the idle time before a request that found
// it idle for more than a quantum; a request called later but arriving at
// least a quantum inside that time (an L1D that waited for an MSHR stamps
// its miss far ahead, so calls are not in time order) is served there as a
// conflict, in the bus's idle time, without changing the bank's state (as
// IdleGaps, payload.h, does for the other queues); the turnarounds and the
// queue of requests stamped more than a quantum after a request's arrival
// do not hold it back. Pages stay open until a
// conflict closes them (open-page policy).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "config/gpu_config.h"
#include "mem/tlm/interconnect.h"  // AddressMap
#include "mem/tlm/payload.h"       // IdleGaps

namespace rfsim::mem {

class DramController {
 public:
  explicit DramController(const config::GpuConfig& cfg);

  // Serves a read or write of `bytes` of the line at `line_addr` arriving at
  // `arrival_ps`, called at simulation time `now_ps` (no later call arrives
  // before it); returns when its data is through plus dram.latency (ps).
  uint64_t access(uint64_t line_addr, uint64_t bytes, bool read, uint64_t arrival_ps, uint64_t now_ps);

  struct Counters {
    uint64_t reads = 0, writes = 0;
    uint64_t read_bytes = 0, write_bytes = 0;
    uint64_t busy_ps = 0;   // data-bus time (transfers)
    uint64_t queue_ps = 0;  // column commands later than their row state alone allows, summed
    uint64_t row_hits = 0, row_misses = 0, row_conflicts = 0;  // row open / bank precharged / other row open
  };
  Counters counters() const;

  // Where a line lives in this channel (the mapping above).
  struct Place {
    uint32_t bank, group;
    uint64_t row, column;
  };
  Place place(uint64_t line_addr) const;

  // New clock, widths and timings (the core clock is shape, fixed); every
  // bank precharged and the channel idle. Counters are kept.
  void configure(const config::GpuConfig& cfg);
  void reset();
  // The time the bus is idle, rounded up (ps).
  uint64_t idleAfterPs() const { return toPsCeil(bus_free_); }
  // Transfer time of `bytes` on the data bus, rounded up (ps).
  uint64_t transferPs(uint64_t bytes) const { return toPsCeil(burst(bytes)); }

 private:
  static constexpr uint64_t kPsPerKhzClock = 1000000000;  // 1 / (1 kHz) in ps

  struct Bank {
    int64_t row = -1;         // open row after the last placed command; -1: precharged
    uint64_t col_ok = 0;      // earliest next column command to it
    uint64_t pre_ok = 0;      // earliest PRE (t_ras, t_rtp, t_wr)
    uint64_t act_ok = 0;      // earliest ACT (t_rp after the last PRE)
    uint64_t last = 0;        // the last column command placed
    uint64_t idle_from = 0, idle_to = 0;  // the idle time a far-stamped request skipped
    int64_t prev_row = -1;    // the row the last PRE closed, open until prev_pre
    uint64_t prev_col_ok = 0, prev_pre = 0;
  };

  uint64_t admit(uint64_t arrival, uint64_t now);
  uint64_t busSlot(uint64_t earliest, uint64_t occupancy, uint64_t latest, bool may_fill);
  uint64_t actAfter(uint64_t t) const;
  void noteAct(uint64_t t, uint64_t now);
  uint64_t burst(uint64_t bytes) const { return (bytes + cfg_.bus_bytes - 1) / cfg_.bus_bytes; }
  uint64_t toCycle(uint64_t ps) const;
  uint64_t toPsCeil(uint64_t cycles) const;

  uint64_t period_ps_;  // core clock
  config::DramConfig cfg_;
  AddressMap map_;
  uint32_t slices_per_channel_ = 1, lines_per_row_ = 1;
  uint64_t line_burst_ = 1;  // DRAM clocks a line holds the bus
  uint64_t khz_ = 1;
  uint64_t latency_ps_ = 0, quantum_ = 0;  // quantum in DRAM clocks
  std::vector<Bank> banks_;
  std::vector<uint64_t> group_col_;        // per bank group: t_ccd_l after its latest column command
  uint64_t last_col_ = 0, bus_free_ = 0;
  uint64_t rd_ok_ = 0;                     // earliest read command (t_wtr after the latest write data)
  uint64_t wr_ok_ = 0;                     // earliest write data (t_rtw after the latest read data)
  uint64_t rd_ok_from_ = 0, wr_ok_from_ = 0;  // when the requests that set them arrived
  std::vector<uint64_t> acts_;             // ACTs placed, sorted (those that still constrain)
  uint64_t busy_cycles_ = 0, queue_cycles_ = 0;  // since configure(), added to the bases below
  uint64_t busy_base_ps_ = 0, queue_base_ps_ = 0;
  IdleGaps bus_gaps_;                      // idle bus slots an older request left
  std::vector<uint64_t> pending_;          // column commands, sorted; those before head_ have left
  size_t head_ = 0;
  std::vector<uint64_t> admitted_;         // their requests' arrivals, sorted; likewise
  size_t ahead_head_ = 0;
  Counters c_;
};

}  // namespace rfsim::mem
