// One DRAM channel behind its L2 slices: a bandwidth queue and a latency.
//
// Timing of a request of B bytes arriving at time a:
//   transfer = B / dram.bus_bytes DRAM clocks (B x 1e9 / (clock_kHz x
//              bus_bytes) ps, an exact rational: busy_until keeps its
//              fraction of a picosecond, so back-to-back requests are spaced
//              by the exact transfer time and no fraction is lost);
//   start    = max(a, busy_until); busy_until = start + transfer;
//   reply    = ceil(busy_until) + dram.latency core cycles.
// Reads and writes share the channel in call order (a write-back is posted:
// it takes the channel's time, nobody waits for its reply).
//
// Not modelled: banks, rows (open/closed-page hits and misses, tRCD, tRP,
// tRAS), refresh, read/write turnaround and write draining, command-bus
// limits. dram.latency stands for an unloaded row-hit access; the bus is the
// only contended resource.
#pragma once

#include <cstdint>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include "config/gpu_config.h"
#include "mem/tlm/payload.h"

namespace rfsim::mem {

class DramChannel final : public sc_core::sc_module {
 public:
  DramChannel(sc_core::sc_module_name name, uint32_t index, const config::GpuConfig& cfg);

  // Bound by the L2 slices of this channel.
  tlm_utils::multi_passthrough_target_socket<DramChannel> from_l2;

  struct Counters {
    uint64_t reads = 0, writes = 0;
    uint64_t read_bytes = 0, write_bytes = 0;
    uint64_t busy_ps = 0;   // data-bus time (transfers), whole ps of the exact sum
    uint64_t queue_ps = 0;  // waiting for the bus, summed over requests (each rounded up)
  };
  const Counters& counters() const { return c_; }

  // New clock, width and latency (the core clock is shape, fixed); the
  // channel becomes idle. Counters are kept.
  void configure(const config::GpuConfig& cfg);
  void reset();
  // The time the bus is idle, rounded up (ps).
  uint64_t idleAfterPs() const { return busy_ps_ + (busy_frac_ ? 1 : 0); }
  // Exact transfer time of `bytes`, rounded up (ps); for tests and stats.
  uint64_t transferPs(uint64_t bytes) const { return ceilDiv(bytes * kPsPerKhzClock, den_); }

  uint32_t index() const { return index_; }

 private:
  static constexpr uint64_t kPsPerKhzClock = 1000000000;  // 1 / (1 kHz) in ps

  void b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);

  uint32_t index_;
  uint64_t period_ps_;         // core clock
  uint64_t den_ = 1;           // clock_kHz x bus_bytes: a byte takes 1e9 / den_ ps
  uint64_t latency_ps_ = 0;
  uint64_t busy_ps_ = 0, busy_frac_ = 0;      // busy_until = busy_ps_ + busy_frac_ / den_
  uint64_t busy_sum_frac_ = 0;                // fraction of c_.busy_ps, in 1/den_ ps
  IdleGaps idle_;                             // gaps of a quantum or more before busy_ps_ (payload.h)
  Counters c_;
};

}  // namespace rfsim::mem
