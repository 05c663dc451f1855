// The crossbar between the SMs and the L2 slices, and the address map that
// picks a line's slice.
//
// Address map (AddressMap): lines are interleaved over the slices at line
// granularity by a hash, so that the strides GPU code loves (a multiple of
// the slice count in lines: a matrix column, a power-of-two pitch) still
// spread over the slices instead of hammering one.
//  * num_slices = 2^k: IPOLY hashing (mem/ipoly.h: Rau 1991, "Pseudo-randomly
//    interleaved memory"; GPGPU-Sim's memory_partition_indexing IPOLY):
//    the slice is the line number, read as a polynomial over GF(2), modulo
//    an irreducible polynomial P_k of degree k. That XOR-folds every bit
//    above the low k into them, bit b contributing the pattern
//    x^b mod P_k. Since x is invertible modulo P_k, the lines i x 2^k,
//    i = 0..2^k-1 land on 2^k different slices. Line number n = hi x 2^k +
//    lo maps one-to-one onto (slice, hi): lo = slice XOR (hi x 2^k mod P_k).
//  * otherwise: n = q x S + r; slice = (r + mix(q)) mod S, mix a 64-bit
//    integer mixer (splitmix64's finaliser), also one-to-one onto
//    (slice, q). Consecutive lines still take consecutive slices; a stride
//    of a multiple of S lines (or S +- 1, which defeats any XOR fold of the
//    digits) lands on pseudo-random slices: S such requests cover about
//    63 % of the slices rather than all of them as with IPOLY.
// The slice indexes its cache with the line's number inside the slice (hi,
// q), the partition-local address of GPGPU-Sim's addrdec, so the slice bits
// do not leave most of its sets unused.
//
// Crossbar timing (one-way latency icnt.latency, icnt.bytes_per_cycle per
// port and direction; flit = bytes_per_cycle bytes):
//  * request: the slice's input port is a BusyQueue; a read is a header of
//    one flit, a write or atomic carries its bytes,
//    ceil(bytes / bytes_per_cycle) flits. The request reaches the slice when
//    its tail does: start + (flits - 1 + latency) cycles.
//  * reply (reads, atomics): the SM's input port is a BusyQueue of the reply
//    flits, from the time the slice has the data; it reaches the L1D at
//    start + (flits - 1 + latency) cycles.
//  * writes are posted: the slice acknowledges on arrival and the ack, a
//    header that takes no reply bandwidth, is back latency cycles later.
// A request for host memory (func::isHostAddress) crosses the crossbar to
// the host link (host_link.h) instead of a slice, and its reply comes back
// through the SM's input port as any other.
// Simplifications: the crossbar itself is non-blocking (only the end ports
// queue), there is no credit flow control, and requests are served in the
// order of the b_transport calls (loosely timed).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include "config/gpu_config.h"
#include "mem/ipoly.h"
#include "mem/tlm/host_link.h"
#include "mem/tlm/payload.h"

namespace rfsim::mem {

class AddressMap {
 public:
  // Throws rfsim::Error unless 1 <= num_slices <= 256 and line_bytes is a
  // power of two.
  AddressMap(uint32_t num_slices, uint32_t line_bytes);

  // The slice of the line holding byte address `addr` (a pure function).
  uint32_t sliceOf(uint64_t addr) const;
  // The line's number inside its slice.
  uint64_t localLine(uint64_t addr) const;
  // The inverse: the byte address of local line `local` of `slice`.
  uint64_t lineAddr(uint32_t slice, uint64_t local) const;

  uint32_t numSlices() const { return slices_; }
  uint32_t lineBytes() const { return 1u << line_shift_; }

 private:
  uint32_t rotation(uint64_t q) const;  // mix(q) mod S

  uint32_t slices_, line_shift_;
  uint32_t k_ = 0;  // degree of P (slices = 2^k)
  bool pow2_ = true;
  Ipoly ipoly_;     // mod P_k (mem/ipoly.h)
};

class Interconnect final : public sc_core::sc_module {
 public:
  Interconnect(sc_core::sc_module_name name, const config::GpuConfig& cfg, uint32_t num_sm_ports);

  // Bound by every SmPort, in SM order (socket index = SM id).
  tlm_utils::multi_passthrough_target_socket<Interconnect> from_sm;
  // Bound to every L2Slice, in slice order (socket index = slice).
  tlm_utils::multi_passthrough_initiator_socket<Interconnect> to_l2;

  uint32_t sliceOf(uint64_t line_addr) const { return map_.sliceOf(line_addr); }
  const AddressMap& addressMap() const { return map_; }

  struct Counters {
    uint64_t requests = 0;
    uint64_t replies = 0;           // with data (reads, atomics); writes are acked
    uint64_t request_bytes = 0;     // data carried to the slices (writes, atomics' operands)
    uint64_t reply_bytes = 0;       // data carried back (reads, atomics' old values)
    uint64_t request_queue_ps = 0;  // waiting for a slice's input port
    uint64_t reply_queue_ps = 0;    // waiting for an SM's input port
  };
  const Counters& counters() const { return c_; }
  const HostLink& hostLink() const { return host_; }

  // New latency, bandwidth and address map (the shape -- ports, slices,
  // clock -- is fixed); empties the port queues. Counters are kept.
  void configure(const config::GpuConfig& cfg);
  // Every port idle.
  void reset();
  // The time every port is idle (ps).
  uint64_t idleAfterPs() const;

 private:
  void b_transport(int sm, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);

  uint64_t period_ps_, latency_ps_;
  uint64_t min_gap_ps_ = 0;  // BusyQueue::min_gap_ps: one quantum
  uint32_t bytes_per_cycle_;
  uint64_t reply(int sm, uint64_t ready, uint64_t bytes, uint64_t stamp);

  AddressMap map_;
  std::vector<BusyQueue> slice_in_;  // per slice
  std::vector<BusyQueue> sm_in_;     // per SM
  HostLink host_;
  Counters c_;
};

}  // namespace rfsim::mem
