#include "mem/tlm/interconnect.h"

#include <string>

#include "common/error.h"
#include "func/memory.h"  // isHostAddress

namespace rfsim::mem {

AddressMap::AddressMap(uint32_t num_slices, uint32_t line_bytes) : slices_(num_slices) {
  if (num_slices == 0 || num_slices > 256)
    throw Error("address map: " + std::to_string(num_slices) + " L2 slices (1 to 256 supported)");
  if ((line_bytes & (line_bytes - 1)) != 0)
    throw Error("address map: line size " + std::to_string(line_bytes) + " is not a power of two");
  line_shift_ = static_cast<uint32_t>(__builtin_ctz(line_bytes));
  pow2_ = (num_slices & (num_slices - 1)) == 0;
  if (!pow2_) return;
  while ((1u << k_) < num_slices) ++k_;
  ipoly_ = Ipoly(k_);
}

uint32_t AddressMap::rotation(uint64_t q) const {
  // splitmix64's finaliser (Steele, Lea and Flood 2014)
  q ^= q >> 30;
  q *= 0xbf58476d1ce4e5b9ull;
  q ^= q >> 27;
  q *= 0x94d049bb133111ebull;
  q ^= q >> 31;
  return static_cast<uint32_t>(q % slices_);
}

uint32_t AddressMap::sliceOf(uint64_t addr) const {
  const uint64_t n = addr >> line_shift_;
  if (pow2_) return ipoly_(n);
  return static_cast<uint32_t>((n % slices_ + rotation(n / slices_)) % slices_);
}

uint64_t AddressMap::localLine(uint64_t addr) const {
  const uint64_t n = addr >> line_shift_;
  return pow2_ ? n >> k_ : n / slices_;
}

uint64_t AddressMap::lineAddr(uint32_t slice, uint64_t local) const {
  uint64_t n;
  if (pow2_) {
    const uint64_t hi = local << k_;
    n = k_ == 0 ? local : hi | (slice ^ ipoly_(hi));
  } else {
    n = local * slices_ + (slice + slices_ - rotation(local)) % slices_;
  }
  return n << line_shift_;
}

Interconnect::Interconnect(sc_core::sc_module_name name, const config::GpuConfig& cfg, uint32_t num_sm_ports)
    : sc_module(name),
      from_sm("from_sm"),
      to_l2("to_l2"),
      period_ps_(corePeriodPs(cfg)),
      latency_ps_(0),
      bytes_per_cycle_(1),
      map_(cfg.l2.num_slices, cfg.l2.cache.line_bytes),
      slice_in_(cfg.l2.num_slices),
      sm_in_(num_sm_ports),
      host_(cfg) {
  from_sm.register_b_transport(this, &Interconnect::b_transport);
  configure(cfg);
}

void Interconnect::configure(const config::GpuConfig& cfg) {
  latency_ps_ = uint64_t{cfg.icnt.latency} * period_ps_;
  bytes_per_cycle_ = cfg.icnt.bytes_per_cycle;
  map_ = AddressMap(cfg.l2.num_slices, cfg.l2.cache.line_bytes);
  min_gap_ps_ = uint64_t{cfg.sim.quantum_cycles} * period_ps_;
  host_.configure(cfg);
  reset();
}

void Interconnect::reset() {
  for (auto& q : slice_in_) q = BusyQueue{0, {min_gap_ps_, {}}};
  for (auto& q : sm_in_) q = BusyQueue{0, {min_gap_ps_, {}}};
  host_.reset();
}

uint64_t Interconnect::idleAfterPs() const {
  uint64_t t = 0;
  for (const auto& q : slice_in_) t = std::max(t, q.busy_until);
  for (const auto& q : sm_in_) t = std::max(t, q.busy_until);
  return std::max(t, host_.idleAfterPs());
}

void Interconnect::b_transport(int sm, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  const MemExtension* ext = gp.get_extension<MemExtension>();
  if (!ext || sm < 0 || static_cast<size_t>(sm) >= sm_in_.size() || gp.get_data_length() == 0) {
    gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    return;
  }
  const uint64_t stamp = toPs(sc_core::sc_time_stamp());
  const uint64_t arrival = stamp + toPs(delay);
  const uint64_t bytes = gp.get_data_length();
  const bool carries_data = gp.is_write();  // stores, and atomics' operands
  const bool posted = gp.is_write() && !ext->atomic;
  if (func::isHostAddress(gp.get_address())) {
    // Across the crossbar to the host link, and the reply (or the ack) back.
    const uint64_t back = host_.transport(arrival + latency_ps_, bytes, carries_data, ext->atomic, stamp);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    if (posted) {
      delay = fromPs(back + latency_ps_ - stamp);
      return;
    }
    delay = fromPs(reply(sm, back, bytes, stamp) - stamp);
    return;
  }
  const uint32_t slice = map_.sliceOf(gp.get_address());

  // Request direction: the slice's input port, then the wire; the request
  // is there when its tail flit is.
  const uint64_t flits_in = carries_data ? ceilDiv(bytes, bytes_per_cycle_) : 1;
  const uint64_t start = slice_in_[slice].reserve(arrival, flits_in * period_ps_, stamp);
  const uint64_t at_slice = start + (flits_in - 1) * period_ps_ + latency_ps_;
  ++c_.requests;
  c_.request_queue_ps += start - arrival;
  if (carries_data) c_.request_bytes += bytes;

  sc_core::sc_time d = fromPs(at_slice - stamp);
  to_l2[static_cast<int>(slice)]->b_transport(gp, d);
  if (gp.is_response_error()) return;

  if (posted) {  // the ack: a header back, no reply bandwidth
    delay = fromPs(at_slice + latency_ps_ - stamp);
    return;
  }
  delay = fromPs(reply(sm, stamp + toPs(d), bytes, stamp) - stamp);
}

// Reply direction: the SM's input port, from when the slice (or the host
// link) has the data; the time the reply's tail is at the SM.
uint64_t Interconnect::reply(int sm, uint64_t ready, uint64_t bytes, uint64_t stamp) {
  const uint64_t flits_out = ceilDiv(bytes, bytes_per_cycle_);
  const uint64_t start_out = sm_in_[static_cast<size_t>(sm)].reserve(ready, flits_out * period_ps_, stamp);
  ++c_.replies;
  c_.reply_queue_ps += start_out - ready;
  c_.reply_bytes += bytes;
  return start_out + (flits_out - 1) * period_ps_ + latency_ps_;
}

}  // namespace rfsim::mem
