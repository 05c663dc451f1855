#include "mem/tlm/sm_port.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/error.h"

namespace rfsim::mem {

void endElaboration() {
  switch (sc_core::sc_get_status()) {
    case sc_core::SC_ELABORATION:
      sc_core::sc_start(sc_core::SC_ZERO_TIME);
      return;
    case sc_core::SC_BEFORE_END_OF_ELABORATION:
    case sc_core::SC_END_OF_ELABORATION:
      throw Error("memory hierarchy: a request from an elaboration callback, before the TLM sockets are bound");
    default:
      return;
  }
}

SmPort::SmPort(sc_core::sc_module_name name, uint32_t sm, uint64_t period_ps)
    : sc_module(name), socket("socket"), sm_(sm), period_ps_(period_ps) {
  if (period_ps_ == 0) throw Error(std::string(this->name()) + ": clock period of 0 ps");
  ext_ = new MemExtension;
  gp_.set_extension(ext_);
}

uint64_t SmPort::request(const MemRequest& r, uint64_t now) {
  if (r.sector_mask == 0)
    throw Error(fmt::format("{}: request for line {:#x} with an empty sector mask", name(), r.line_addr));
  if (sc_core::sc_get_status() != sc_core::SC_RUNNING) endElaboration();  // the sockets are bound at its end
  const uint32_t len = sectorBytes(r.sector_mask);
  gp_.set_command(r.write || r.atomic ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  gp_.set_address(r.line_addr);
  gp_.set_data_ptr(scratch_.data());
  gp_.set_data_length(len);
  gp_.set_streaming_width(len);
  gp_.set_byte_enable_ptr(nullptr);
  gp_.set_byte_enable_length(0);
  gp_.set_dmi_allowed(false);
  gp_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  ext_->sector_mask = r.sector_mask;
  ext_->kind = r.kind;
  ext_->atomic = r.atomic;
  ext_->sm = sm_;
  ++requests_;

  const uint64_t stamp = toPs(sc_core::sc_time_stamp());
  const uint64_t issue = t0_ps_ + now * period_ps_;
  sc_core::sc_time delay = fromPs(issue > stamp ? issue - stamp : 0);
  socket->b_transport(gp_, delay);
  if (gp_.is_response_error())
    throw Error(fmt::format("{}: {} of line {:#x} (sectors {:#x}) answered {}", name(),
                            r.atomic ? "atomic" : (r.write ? "write" : "read"), r.line_addr, r.sector_mask,
                            gp_.get_response_string()));
  const uint64_t done = stamp + toPs(delay);
  const uint64_t cycle = done > t0_ps_ ? ceilDiv(done - t0_ps_, period_ps_) : 0;
  return std::max(cycle, now + 1);
}

}  // namespace rfsim::mem

namespace rfsim::mem {

uint32_t SmPort::defer(const MemRequest& r, uint64_t now) {
  if (sent_) {
    queue_.clear();
    sent_ = false;
  }
  queue_.push_back(Queued{r, now});
  return static_cast<uint32_t>(queue_.size() - 1);
}

void sendDeferred(const std::vector<SmPort*>& ports, uint64_t boundary) {
  struct Ref {
    uint64_t now;
    uint32_t port, token;
  };
  std::vector<Ref> order;
  for (uint32_t p = 0; p < ports.size(); ++p) {
    SmPort& s = *ports[p];
    if (s.sent_) s.queue_.clear();
    for (uint32_t t = 0; t < s.queue_.size(); ++t) order.push_back(Ref{s.queue_[t].now, p, t});
  }
  // Ports are in SM order and tokens in request order: a stable sort on the
  // cycle keeps (SM, order) within a cycle.
  std::stable_sort(order.begin(), order.end(), [](const Ref& a, const Ref& b) { return a.now < b.now; });
  for (SmPort* s : ports) {
    s->replies_.assign(s->queue_.size(), 0);
    s->sent_ = true;
  }
  for (const Ref& r : order) {
    SmPort& s = *ports[r.port];
    const MemRequest& q = s.queue_[r.token].r;
    const uint64_t at = s.request(q, r.now);
    if (at < boundary && !(q.write && !q.atomic))
      throw Error(fmt::format("{}: the reply to a request of cycle {} arrives at cycle {}, inside the quantum that "
                              "ends at {}: sim.parallel_sms needs sim.quantum_cycles at most the shortest round trip "
                              "of the memory side (icnt.latency, l2.latency, host_link.latency_ns)",
                              s.name(), r.now, at, boundary));
    s.replies_[r.token] = at;
  }
}

}  // namespace rfsim::mem
