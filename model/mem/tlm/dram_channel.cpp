#include "mem/tlm/dram_channel.h"

#include "mem/tlm/payload.h"

namespace rfsim::mem {

DramChannel::DramChannel(sc_core::sc_module_name name, uint32_t index, const config::GpuConfig& cfg)
    : sc_module(name), from_l2("from_l2"), index_(index), ctl_(cfg) {
  from_l2.register_b_transport(this, &DramChannel::b_transport);
}

void DramChannel::b_transport(int, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  const uint64_t bytes = gp.get_data_length();
  if (bytes == 0 || !(gp.is_read() || gp.is_write())) {
    gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    return;
  }
  const uint64_t stamp = toPs(sc_core::sc_time_stamp());
  const uint64_t done = ctl_.access(gp.get_address(), bytes, gp.is_read(), stamp + toPs(delay), stamp);
  delay = fromPs(done - stamp);
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace rfsim::mem
