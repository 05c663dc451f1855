// What lies behind an SM's L1D, as the L1D sees it: the crossbar, the L2
// slices and DRAM (mem/tlm/, over TLM-2.0), or a fixed latency (unit tests,
// sim.memory: fixed).
//
// The model is timing-only: the functional model (func/) has already read or
// written the data when the SM issues the access, so a request carries an
// address, a sector mask and what it is, never data.
#pragma once

#include <cstdint>

#include "common/error.h"
#include "mem/coalescer.h"  // AccessKind

namespace rfsim::mem {

// One request leaving an SM's L1D.
struct MemRequest {
  uint64_t line_addr = 0;   // byte address of the line (aligned to the line size)
  uint8_t sector_mask = 0;  // the 32-byte sectors moved (nonzero)
  bool write = false;       // a store or a dirty write-back (posted: the L1D does not wait)
  bool atomic = false;      // performed at the L2; the reply carries the old value
  AccessKind kind = AccessKind::Other;
};

class NextLevel {
 public:
  virtual ~NextLevel() = default;
  // `now`: the cycle, on the requesting SM's launch clock, at which the
  // request leaves the L1D. Returns the cycle at which its reply reaches the
  // L1D (a load's sectors, an atomic's value, a write's acknowledgement),
  // always > now. Contention is part of it: a busy port, slice or channel
  // delays the reply.
  virtual uint64_t request(const MemRequest& r, uint64_t now) = 0;

  // Deferred replies (sim.parallel_sms; docs/memory.md "Parallel SMs"):
  // while deferred(), the L1D calls defer() instead of request(). It queues
  // the request and returns a token; the memory side's phase at the
  // quantum's end sends every SM's queued requests in (cycle, SM, order)
  // order, and reply(token) then gives the reply cycle, until the next
  // quantum's first defer(). A reply is never inside the quantum its
  // request left in (config: sim.quantum_cycles), so nothing of the
  // quantum needed it earlier.
  virtual bool deferred() const { return false; }
  virtual uint32_t defer(const MemRequest&, uint64_t) { throw Error("NextLevel::defer: replies are not deferred"); }
  virtual uint64_t reply(uint32_t) const { throw Error("NextLevel::reply: replies are not deferred"); }
};

class FixedLatencyNextLevel final : public NextLevel {
 public:
  explicit FixedLatencyNextLevel(uint64_t latency) : latency_(latency ? latency : 1) {}
  uint64_t request(const MemRequest&, uint64_t now) override { return now + latency_; }

 private:
  uint64_t latency_;
};

}  // namespace rfsim::mem
