// One DRAM channel behind its L2 slices: the TLM-2.0 target of its
// controller (dram_controller.h: banks, rows, timing and the scheduler).
// A request is a read or a write (a write-back is posted: nobody waits for
// its reply); the delay comes back as the time its data is through plus
// dram.latency.
#pragma once

#include <cstdint>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include "config/gpu_config.h"
#include "mem/tlm/dram_controller.h"

namespace rfsim::mem {

class DramChannel final : public sc_core::sc_module {
 public:
  DramChannel(sc_core::sc_module_name name, uint32_t index, const config::GpuConfig& cfg);

  // Bound by the L2 slices of this channel.
  tlm_utils::multi_passthrough_target_socket<DramChannel> from_l2;

  using Counters = DramController::Counters;
  Counters counters() const { return ctl_.counters(); }
  const DramController& controller() const { return ctl_; }

  // New clock, width and timings (the core clock is shape, fixed); the
  // channel becomes idle, every bank precharged. Counters are kept.
  void configure(const config::GpuConfig& cfg) { ctl_.configure(cfg); }
  void reset() { ctl_.reset(); }
  // The time the bus is idle, rounded up (ps).
  uint64_t idleAfterPs() const { return ctl_.idleAfterPs(); }
  // Transfer time of `bytes` on the data bus, rounded up (ps).
  uint64_t transferPs(uint64_t bytes) const { return ctl_.transferPs(bytes); }

  uint32_t index() const { return index_; }

 private:
  void b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);

  uint32_t index_;
  DramController ctl_;
};

}  // namespace rfsim::mem
