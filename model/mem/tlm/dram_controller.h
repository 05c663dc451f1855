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
//   COL  >= the neighbouring transfers' COLs + t_ccd_l in the same bank
//           group, t_ccd_s in another (each transfer holds the bus at least
//           t_ccd_s)
//   read  COL >= end of the write data before it + t_wtr; data at COL + t_cl
//   write data (at COL + t_cwl) >= end of the read data before it + t_rtw
//   (and both likewise against the transfer after it, when placed between)
//   reply = end of the data + dram.latency core cycles (controller and PHY).
// Refresh is not modelled (a few per cent of the time: tRFC / tREFI);
// nor the command bus (HBM's separate row and column buses issue a row and a
// column command per clock; one command per clock per bus is not checked).
//
// Scheduling under loosely-timed transport. A request's reply time must be
// known when b_transport returns, so a request answered once is never
// delayed by a later one. Calls do not come in time order: a request's
// arrival runs ahead of the caller's time by the L2's queues and an L1D's
// MSHR waits (thousands of cycles under load), so one called later may
// arrive earlier. The controller therefore keeps timelines, not a current
// state, and places each request at the earliest time they allow around
// what is already placed:
//  * per bank, its row windows: ACT, the column commands, PRE. A new
//    window fits in the bank's idle time between two placed ones (the one
//    before precharged no earlier than the request's arrival), so a request
//    arriving into time its bank spent idle is served there, whatever was
//    placed after it;
//  * per channel, the data bus's transfers, each with its direction and
//    bank group: a transfer fits between two placed ones when the bus,
//    t_ccd_s/t_ccd_l and the turnarounds hold on both sides;
//  * per channel, the ACTs placed, for t_rrd and t_faw (before or after).
// Scheduler:
//  * frfcfs: a request whose row has a window open at its arrival, or
//    opened later for a request that arrived before it, joins it as a row
//    hit (the scheduler serves the row's requests together); a window
//    opened for a request that arrives later is joined when that gives the
//    data sooner than a window of its own. So a younger row hit is served
//    before an older row miss.
//  * fcfs: column commands in arrival order (none before the latest one of
//    a request that arrived no later); a row hit only in the bank's last
//    window.
//  * dram.queue_depth requests wait in the controller at most (those
//    arrived and whose column command is still to come): a request that
//    finds it full waits until one leaves; this also bounds how many older
//    requests a row hit passes.
// Pages stay open until a conflict closes them (open-page policy).
#pragma once

#include <array>
#include <cstdint>
#include <map>
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
  static constexpr uint64_t kOpen = UINT64_MAX;

  // A row's time in a bank: ACT, column commands, PRE (kOpen while no
  // later window needs the bank).
  struct Window {
    uint64_t row;
    uint64_t opened_for;  // the arrival of the request its ACT is for
    uint64_t min_pre;  // earliest PRE its commands allow (t_ras, t_rtp, t_wr)
    uint64_t pre = kOpen;
  };
  using Windows = std::map<uint64_t, Window>;  // by ACT time
  // A transfer on the data bus.
  struct Transfer {
    uint64_t end;  // data [start, end)
    uint64_t col;  // its column command
    uint32_t group;
    bool read;
  };
  struct Request {
    uint64_t arrival;
    uint64_t col_floor;  // no column command before it (FCFS: fcfsFloor)
    uint64_t n;  // data clocks
    uint32_t group;
    bool read;
  };

  uint64_t admit(uint64_t arrival);
  // The earliest transfer of `req` with data at or after `earliest` and at
  // or before `latest`, kNever when none fits (not placed).
  uint64_t findSlot(const Request& req, uint64_t earliest, uint64_t latest) const;
  void placeTransfer(const Request& req, uint64_t data);
  // A row hit in window `w` (followed by `next`, or the bank's last):
  // its data time or kNever.
  uint64_t tryHit(const Request& req, Windows::iterator w, Windows::iterator next, Windows& bank) const;
  // A window of its own: its data time, ACT and the window it follows.
  struct NewWindow {
    uint64_t data = UINT64_MAX, act = 0;
    Windows::iterator prev;  // end(): none before it
    bool precharged = true;  // the bank was precharged at its ACT (a miss)
  };
  NewWindow tryNew(const Request& req, uint64_t a, Windows& bank) const;
  uint64_t actAfter(uint64_t t) const;
  void noteAct(uint64_t t);
  void forget(uint64_t now);
  uint64_t burst(uint64_t bytes) const { return (bytes + cfg_.bus_bytes - 1) / cfg_.bus_bytes; }
  uint64_t occupancy(uint64_t n) const { return std::max<uint64_t>(n, cfg_.t_ccd_s); }
  uint64_t colToData(bool read) const { return read ? cfg_.t_cl : cfg_.t_cwl; }
  // Earliest PRE after a column command whose data is [data, data + n).
  uint64_t preAfter(bool read, uint64_t data, uint64_t n) const {
    return read ? data - cfg_.t_cl + cfg_.t_rtp : data + n + cfg_.t_wr;
  }
  uint64_t toCycle(uint64_t ps) const;
  uint64_t toPsCeil(uint64_t cycles) const;

  uint64_t period_ps_;  // core clock
  config::DramConfig cfg_;
  AddressMap map_;
  uint32_t slices_per_channel_ = 1, lines_per_row_ = 1;
  uint64_t khz_ = 1;
  uint64_t latency_ps_ = 0;
  std::vector<Windows> banks_;
  std::map<uint64_t, Transfer> bus_;       // by data start
  IdleGaps gaps_;                          // idle bus time between transfers (in DRAM clocks), each >= a line
  uint64_t bus_free_ = 0;
  // FCFS: by arrival, the latest column command of the requests that
  // arrived then or before (a staircase: non-decreasing).
  std::map<uint64_t, uint64_t> fcfs_cols_;
  uint64_t fcfsFloor(uint64_t arrival) const;
  void noteFcfs(uint64_t arrival, uint64_t col);
  std::vector<uint64_t> acts_;             // ACTs placed, sorted (those that still constrain)
  uint64_t busy_cycles_ = 0, queue_cycles_ = 0;  // since configure(), added to the bases below
  uint64_t busy_base_ps_ = 0, queue_base_ps_ = 0;
  // The queue: requests' arrivals and column commands after `now`, sorted,
  // and how many arrived at or before `now` with their command after it.
  struct SortedTimes {  // sorted; those before `head` have left
    std::vector<uint64_t> v;
    size_t head = 0;
    void insert(uint64_t t);
    size_t dropUpTo(uint64_t t);              // how many <= t left
    size_t countUpTo(uint64_t t) const;       // how many still here are <= t
  };
  SortedTimes arrivals_, cols_;
  uint64_t waiting_at_now_ = 0;
  uint64_t now_ = 0;
  Counters c_;
};

}  // namespace rfsim::mem
