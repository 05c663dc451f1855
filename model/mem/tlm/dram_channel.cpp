#include "mem/tlm/dram_channel.h"

#include <cmath>

namespace rfsim::mem {

DramChannel::DramChannel(sc_core::sc_module_name name, uint32_t index, const config::GpuConfig& cfg)
    : sc_module(name), from_l2("from_l2"), index_(index), period_ps_(corePeriodPs(cfg)) {
  from_l2.register_b_transport(this, &DramChannel::b_transport);
  configure(cfg);
}

void DramChannel::configure(const config::GpuConfig& cfg) {
  // The clock to 1 kHz: a transfer time is then an exact rational in ps.
  const uint64_t khz = std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(cfg.dram.clock_mhz * 1000.0)));
  den_ = khz * cfg.dram.bus_bytes;
  latency_ps_ = uint64_t{cfg.dram.latency} * period_ps_;
  idle_.min_gap_ps = uint64_t{cfg.sim.quantum_cycles} * period_ps_;
  busy_sum_frac_ = 0;
  reset();
}

void DramChannel::reset() {
  busy_ps_ = busy_frac_ = busy_sum_frac_ = 0;
  idle_.gaps.clear();
}

void DramChannel::b_transport(int, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  const uint64_t bytes = gp.get_data_length();
  if (bytes == 0 || !(gp.is_read() || gp.is_write())) {
    gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    return;
  }
  const uint64_t stamp = toPs(sc_core::sc_time_stamp());
  const uint64_t arrival = stamp + toPs(delay);

  // A request stamped before the channel's busy time that fits in an idle
  // gap a far-future request left (IdleGaps, payload.h) is served there.
  idle_.forget(stamp);
  const uint64_t num = bytes * kPsPerKhzClock;
  const uint64_t dur = transferPs(bytes);
  const uint64_t gap = arrival < busy_ps_ ? idle_.take(arrival, dur) : UINT64_MAX;
  uint64_t done = 0;
  if (gap != UINT64_MAX) {
    c_.queue_ps += gap - arrival;
    c_.busy_ps += dur;
    done = gap + dur + latency_ps_;
  } else {
    idle_.keep(idleAfterPs(), arrival);
    // start = max(arrival, busy_until), exactly.
    if (arrival > busy_ps_ || (arrival == busy_ps_ && busy_frac_ == 0)) {
      busy_ps_ = arrival;
      busy_frac_ = 0;
    } else {
      c_.queue_ps += busy_ps_ - arrival + (busy_frac_ ? 1 : 0);
    }
    busy_ps_ += num / den_;
    busy_frac_ += num % den_;
    if (busy_frac_ >= den_) {
      busy_frac_ -= den_;
      ++busy_ps_;
    }
    c_.busy_ps += num / den_;
    busy_sum_frac_ += num % den_;
    if (busy_sum_frac_ >= den_) {
      busy_sum_frac_ -= den_;
      ++c_.busy_ps;
    }
    done = idleAfterPs() + latency_ps_;
  }
  if (gp.is_read()) {
    ++c_.reads;
    c_.read_bytes += bytes;
  } else {
    ++c_.writes;
    c_.write_bytes += bytes;
  }
  delay = fromPs(done - stamp);
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace rfsim::mem
