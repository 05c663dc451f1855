// The GPU's link to host memory (PCIe, NVLink-C2C): what a kernel's loads,
// stores and atomics to mapped host memory (func::isHostAddress) cross
// instead of an L2 slice and DRAM. The crossbar hands such a request to the
// link (Interconnect::b_transport); the link is plain C++ inside it.
//
// Timing (host_link.latency_ns, host_link.bytes_per_ns; one BusyQueue per
// direction, each moving bytes_per_ns):
//  * read: the request is a header; the data comes back latency_ns after
//    the request reaches the link, then takes bytes / bytes_per_ns on the
//    host-to-GPU direction;
//  * write: posted, as PCIe writes are: its data takes bytes / bytes_per_ns
//    on the GPU-to-host direction and it is acknowledged once it is on the
//    link;
//  * atomic: its operands go out as a write's data, the old values come back
//    as a read's, latency_ns after the operands are on the link.
// Host memory is neither cached in the L2 nor coherent with it, so nothing
// else sees these requests. Simplifications: no credit flow control, no
// packet headers beyond what the effective bandwidth already charges.
#pragma once

#include <cstdint>

#include "config/gpu_config.h"
#include "mem/tlm/payload.h"

namespace rfsim::mem {

class HostLink {
 public:
  explicit HostLink(const config::GpuConfig& cfg) { configure(cfg); }

  // Takes host_link.* and the quantum (the queues' idle-gap threshold);
  // empties the queues. Counters are kept.
  void configure(const config::GpuConfig& cfg);
  void reset();

  // A request of `bytes` at the link at `arrival` ps (`horizon`: the
  // simulation time of the call); returns the time its data (read, atomic)
  // or its acknowledgement (write) is back at the GPU's end.
  uint64_t transport(uint64_t arrival, uint64_t bytes, bool write, bool atomic, uint64_t horizon);

  struct Counters {
    uint64_t reads = 0, writes = 0, atomics = 0;
    uint64_t read_bytes = 0;   // host to GPU (reads, atomics' old values)
    uint64_t write_bytes = 0;  // GPU to host (writes, atomics' operands)
    uint64_t queue_ps = 0;     // waiting for a direction of the link, summed
  };
  const Counters& counters() const { return c_; }
  // The time both directions are idle (ps).
  uint64_t idleAfterPs() const;

 private:
  uint64_t transferPs(uint64_t bytes) const;

  uint64_t latency_ps_ = 0;
  double ps_per_byte_ = 0.0;
  uint64_t min_gap_ps_ = 0;
  BusyQueue to_host_, from_host_;
  Counters c_;
};

}  // namespace rfsim::mem
