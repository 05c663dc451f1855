#include "mem/tlm/host_link.h"

#include <algorithm>
#include <cmath>

namespace rfsim::mem {

void HostLink::configure(const config::GpuConfig& cfg) {
  latency_ps_ = static_cast<uint64_t>(std::llround(cfg.host_link.latency_ns * 1000.0));
  ps_per_byte_ = 1000.0 / cfg.host_link.bytes_per_ns;
  min_gap_ps_ = uint64_t{cfg.sim.quantum_cycles} * corePeriodPs(cfg);
  reset();
}

void HostLink::reset() {
  to_host_ = BusyQueue{0, {min_gap_ps_, {}}};
  from_host_ = BusyQueue{0, {min_gap_ps_, {}}};
}

uint64_t HostLink::transferPs(uint64_t bytes) const {
  return std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(double(bytes) * ps_per_byte_)));
}

uint64_t HostLink::idleAfterPs() const { return std::max(to_host_.busy_until, from_host_.busy_until); }

uint64_t HostLink::transport(uint64_t arrival, uint64_t bytes, bool write, bool atomic, uint64_t horizon) {
  uint64_t out_done = arrival;  // when the request (and any data it carries) is on the link
  if (write) {
    const uint64_t d = transferPs(bytes);
    const uint64_t start = to_host_.reserve(arrival, d, horizon);
    c_.queue_ps += start - arrival;
    out_done = start + d;
    c_.write_bytes += bytes;
    if (!atomic) {
      ++c_.writes;
      return out_done;  // posted
    }
  }
  // Reads and atomics: the data comes back a round trip later.
  const uint64_t ready = out_done + latency_ps_;
  const uint64_t d = transferPs(bytes);
  const uint64_t start = from_host_.reserve(ready, d, horizon);
  c_.queue_ps += start - ready;
  c_.read_bytes += bytes;
  ++(atomic ? c_.atomics : c_.reads);
  return start + d;
}

}  // namespace rfsim::mem
