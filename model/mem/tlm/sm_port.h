// One SM's port onto the memory side: the L1D's NextLevel, turned into a
// TLM-2.0 loosely-timed b_transport on the crossbar.
//
// Clocks: the SM counts cycles from its launch; cycle c of the current
// launch is simulated time origin + c x period. A request leaving the L1D at
// cycle `now` is sent with the annotated delay origin + now x period -
// sc_time_stamp() (the SM may run ahead of SystemC time within the TLM-2.0
// global quantum; an SM behind SystemC time sends with zero delay, i.e. a
// little late), and its reply cycle is the first cycle edge at or after
// sc_time_stamp() + the returned delay, and never before now + 1.
//
// When it may be called: any time outside SystemC's elaboration callbacks.
// The crossbar's multi-sockets register their callbacks at the end of
// elaboration (and IEEE 1666 forbids interface method calls before it), so
// a request made while SystemC is still elaborating (a plain-loop kernel
// that never calls sc_start) first ends elaboration with
// sc_start(SC_ZERO_TIME) (MemoryHierarchy::endElaboration): no module can
// be created in the process after that. Within a running or paused
// simulation b_transport is a plain call and sc_time_stamp() constant.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "mem/next_level.h"
#include "mem/tlm/payload.h"

namespace rfsim::mem {

// Ends SystemC's elaboration (sc_start(SC_ZERO_TIME)) if it is still going
// on; throws rfsim::Error from an elaboration callback, where it cannot.
void endElaboration();

class SmPort;

// The phase of the deferred replies: sends the requests queued on `ports`
// through b_transport in (cycle, SM, order) order, as request() would have
// one by one, and keeps each reply for SmPort::reply. Called once per
// quantum from the SystemC process, no SM running. Throws rfsim::Error when
// a reply a load or atomic waits for falls before `boundary`, the next
// quantum's first cycle (sim.quantum_cycles longer than a round trip).
void sendDeferred(const std::vector<SmPort*>& ports, uint64_t boundary);

class SmPort final : public sc_core::sc_module, public NextLevel {
 public:
  // `sm`: the SM's id (its index on the crossbar); `period_ps`: the core
  // clock period (corePeriodPs).
  SmPort(sc_core::sc_module_name name, uint32_t sm, uint64_t period_ps);

  tlm_utils::simple_initiator_socket<SmPort> socket;

  // Cycle 0 of the SM's current launch is simulated time `t0`.
  void setOrigin(const sc_core::sc_time& t0) { t0_ps_ = toPs(t0); }
  sc_core::sc_time origin() const { return fromPs(t0_ps_); }

  // NextLevel: throws rfsim::Error for an empty sector mask, from an
  // elaboration callback, or when the memory side answers with an error
  // response.
  uint64_t request(const MemRequest& r, uint64_t now) override;

  // Deferred replies (NextLevel::defer): on for a launch with
  // sim.parallel_sms. defer() only appends to this port's queue, so SMs on
  // different host threads may call it at once.
  void setDeferred(bool on) { deferred_ = on; }
  bool deferred() const override { return deferred_; }
  uint32_t defer(const MemRequest& r, uint64_t now) override;
  uint64_t reply(uint32_t token) const override { return replies_.at(token); }

  uint32_t sm() const { return sm_; }
  uint64_t periodPs() const { return period_ps_; }
  uint64_t requests() const { return requests_; }

 private:
  friend void sendDeferred(const std::vector<SmPort*>& ports, uint64_t boundary);
  struct Queued {
    MemRequest r;
    uint64_t now;
  };

  uint32_t sm_;
  uint64_t period_ps_;
  bool deferred_ = false;
  std::vector<Queued> queue_;      // this quantum's deferred requests, a token indexes it
  std::vector<uint64_t> replies_;  // the last phase's reply cycles, by token
  bool sent_ = false;              // queue_ went out: the next defer() starts a new quantum's
  uint64_t t0_ps_ = 0;
  uint64_t requests_ = 0;
  tlm::tlm_generic_payload gp_;   // reused by every request
  MemExtension* ext_ = nullptr;   // owned by gp_ (freed by its destructor)
  std::array<unsigned char, 8 * kSectorBytes> scratch_{};  // the data pointer; never read
};

}  // namespace rfsim::mem
