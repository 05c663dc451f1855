// The memory side below the L1Ds as SystemC modules joined by TLM-2.0
// sockets, loosely timed (blocking transport with annotated delays):
//
//   SmPort 0 ..N-1 --+                    +--> L2Slice 0 --+
//   (mem::NextLevel) |--> Interconnect ---|    ...         |--> DramChannel c
//                    |    (crossbar)      +--> L2Slice S-1-+    (S/C slices each)
//
// Timing-only: a request is an address, a sector mask and its kind; the
// functional model has the data. Each target computes its arrival time
// (sc_time_stamp() + delay), adds its queueing (BusyQueue: "busy until" per
// port or channel) and latency to the delay and returns; nothing is
// scheduled. Times are integer picoseconds. See interconnect.h (address
// hash, crossbar), l2_slice.h (L2) and dram_controller.h (DRAM) for each
// part's timing and simplifications. An unloaded read of `bytes` that
// misses the L2 comes back after, in core cycles (F = reply flits =
// ceil(bytes / icnt.bytes_per_cycle); the sum in ps, rounded up to an edge)
//   icnt.latency + l2.latency + [to the DRAM clock edge] + row + t_cl
//     + transfer(bytes) + dram.latency + (F - 1) + icnt.latency
// where row is 0 for a row hit, t_rcd for a precharged bank and t_rp +
// t_rcd for a conflict (DRAM clocks)
// and one that hits after icnt.latency + l2.latency + (F - 1) + icnt.latency;
// a store is acked after (request flits - 1) + 2 x icnt.latency.
//
// Lifetime: SystemC modules can only be created during elaboration, so the
// owner (gpu::Simulation's GpuTop) creates one MemoryHierarchy in its
// SystemC kernel before that kernel's first sc_start(), keeps it, and
// reconfigure()s it for each run; L2 contents
// persist from one call to the next (launches one after the other see a
// warm L2, as on a real GPU). Transport needs the sockets' end-of-
// elaboration binding (the multi-sockets register their callbacks then):
// the first request made while SystemC is still elaborating ends
// elaboration (endElaboration(): sc_start(SC_ZERO_TIME)), after which no
// module can be created in that kernel; create every module first.
//
// Queues and pending fills hold absolute times: a launch whose origin
// (SmPort::setOrigin) is earlier than the previous launch's idleAfter()
// finds that traffic still in flight. Launches one after the other take
// origins at or after the previous end.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "config/gpu_config.h"
#include "mem/cache.h"  // KindCounters
#include "mem/tlm/dram_channel.h"
#include "mem/tlm/interconnect.h"
#include "mem/tlm/l2_slice.h"
#include "mem/tlm/sm_port.h"
#include "stats/stats.h"

namespace rfsim::mem {

// Everything the hierarchy counts, cumulative since it was built (so the
// difference of two snapshots is one kernel's share).
struct HierarchyCounters {
  KindCounters l2{};  // all kinds
  std::array<KindCounters, kNumAccessKinds> l2_by_kind{};
  uint64_t l2_evictions = 0, l2_writebacks = 0, l2_bypasses = 0;
  uint64_t l2_sector_misses = 0;  // misses whose line was present: l2.misses less these placed a line
  uint64_t l2_port_queue_ps = 0;
  std::vector<uint64_t> slice_accesses;  // per slice, every lookup
  uint64_t dram_reads = 0, dram_writes = 0;
  uint64_t dram_read_bytes = 0, dram_write_bytes = 0;
  uint64_t dram_busy_ps = 0, dram_queue_ps = 0;  // summed over channels
  uint64_t dram_row_hits = 0, dram_row_misses = 0, dram_row_conflicts = 0;
  uint64_t icnt_requests = 0, icnt_replies = 0;
  uint64_t icnt_request_bytes = 0, icnt_reply_bytes = 0;
  uint64_t icnt_request_queue_ps = 0, icnt_reply_queue_ps = 0;
  uint64_t host_reads = 0, host_writes = 0, host_atomics = 0;  // the host link (host_link.h)
  uint64_t host_read_bytes = 0, host_write_bytes = 0, host_queue_ps = 0;
};
// Field by field; throws rfsim::Error if the slice counts differ.
HierarchyCounters operator-(const HierarchyCounters& a, const HierarchyCounters& b);

namespace detail {
// Checks, before sc_module's constructor runs, that modules may be created.
struct ElaborationGuard {
  ElaborationGuard();
};
}  // namespace detail

class MemoryHierarchy final : private detail::ElaborationGuard, public sc_core::sc_module {
 public:
  // `num_sm_ports`: the SmPorts (normally gpu.num_sms). Throws rfsim::Error
  // outside elaboration, or for a configuration it cannot build: L1D and L2
  // lines of different sizes, l2.num_slices not a multiple of
  // dram.num_channels, a slice's share of the L2 not a cache geometry.
  MemoryHierarchy(sc_core::sc_module_name name, const config::GpuConfig& cfg, uint32_t num_sm_ports);
  ~MemoryHierarchy() override;

  SmPort& port(uint32_t sm);
  uint32_t numPorts() const { return static_cast<uint32_t>(ports_.size()); }
  Interconnect& interconnect() { return *icnt_; }
  L2Slice& slice(uint32_t i) { return *slices_.at(i); }
  DramChannel& channel(uint32_t i) { return *channels_.at(i); }
  uint32_t numSlices() const { return static_cast<uint32_t>(slices_.size()); }
  uint32_t numChannels() const { return static_cast<uint32_t>(channels_.size()); }
  uint32_t sliceOf(uint64_t line_addr) const { return icnt_->sliceOf(line_addr); }
  // The channel behind `slice`: channel c serves slices c x S/C to
  // (c + 1) x S/C - 1.
  uint32_t channelOf(uint32_t slice) const { return slice / (cfg_.l2.num_slices / cfg_.dram.num_channels); }
  uint64_t periodPs() const { return period_ps_; }
  const config::GpuConfig& config() const { return cfg_; }

  // Same modules and clock: num_sm_ports ports, l2.num_slices,
  // dram.num_channels, gpu.clock_mhz (the period). The one-argument form
  // takes gpu.num_sms ports.
  bool sameShape(const config::GpuConfig& cfg, uint32_t num_sm_ports) const;
  bool sameShape(const config::GpuConfig& cfg) const { return sameShape(cfg, cfg.gpu.num_sms); }
  // Takes the memory-side parameters of `cfg` (L2 geometry, latencies,
  // bandwidths, MSHRs, DRAM clock...): a no-op when they equal the held
  // ones (the L2 stays warm), else every cache is rebuilt empty and every
  // queue idle. Counters are kept. Throws rfsim::Error, changing nothing,
  // if the slices, channels or clock differ (the ports are the caller's to
  // compare, with sameShape) or the configuration is not buildable.
  void reconfigure(const config::GpuConfig& cfg);
  // Empties every cache (dirty data is dropped, not written back), pending
  // fill and queue.
  void reset();
  // Functional warming of the L2 (L2Slice::warm) with a request for the
  // sectors `mask` of the line at `line_addr`.
  void warmL2(uint64_t line_addr, uint8_t mask, bool write) { slices_[sliceOf(line_addr)]->warm(line_addr, mask, write); }

  HierarchyCounters counters() const;
  // The time every port and channel is idle and every fill done.
  sc_core::sc_time idleAfter() const;

  // Ends elaboration (sc_start(SC_ZERO_TIME), which also runs the time-0
  // initialisation of every process) if SystemC is still elaborating, so the
  // sockets are bound and requests legal; afterwards no module can be
  // created in this process. SmPort::request calls it on a request made
  // during elaboration (a plain-loop kernel that never runs SystemC).
  // Throws rfsim::Error from an elaboration callback.
  static void endElaboration();

 private:
  static void check(const config::GpuConfig& cfg);

  config::GpuConfig cfg_;
  uint64_t period_ps_;
  std::unique_ptr<Interconnect> icnt_;
  std::vector<std::unique_ptr<SmPort>> ports_;
  std::vector<std::unique_ptr<L2Slice>> slices_;
  std::vector<std::unique_ptr<DramChannel>> channels_;
};

// The hierarchy's statistics of one kernel: groups "l2", "dram", "icnt",
// "host" (the host link).
class HierarchyStats : public stats::Group {
 public:
  HierarchyStats(stats::Group* parent, const std::string& name, const config::GpuConfig& cfg);

  // `delta`: the kernel's counters (a difference of two snapshots);
  // `kernel_cycles`: its length in core cycles (for the rates).
  void set(const HierarchyCounters& delta, uint64_t kernel_cycles);
  uint64_t l2Misses() const { return l2.misses.get(); }

  struct L2 : stats::Group {
    explicit L2(stats::Group* parent, uint32_t num_slices);
    stats::Scalar accesses, hits, hit_reserved, misses, mshr_full;
    stats::Vector accesses_by_kind, hits_by_kind, hit_reserved_by_kind, misses_by_kind, mshr_full_by_kind;
    stats::Formula hit_rate;
    stats::Scalar evictions, writebacks, bypasses, port_queue_cycles;
    stats::Vector slice_accesses;
    stats::Formula slice_imbalance;
  } l2;
  struct Dram : stats::Group {
    Dram(stats::Group* parent, const HierarchyStats& top);
    stats::Scalar reads, writes, requests, read_bytes, write_bytes, busy_cycles, queue_cycles;
    stats::Scalar row_hits, row_misses, row_conflicts;
    stats::Formula bandwidth_utilisation, busy_share, achieved_gbps, row_hit_rate, mean_queue_cycles;
  } dram;
  struct Icnt : stats::Group {
    Icnt(stats::Group* parent, const HierarchyStats& top);
    stats::Scalar requests, replies, request_bytes, reply_bytes, bytes, request_queue_cycles, reply_queue_cycles;
    stats::Formula mean_request_queue_cycles, mean_reply_queue_cycles;
  } icnt;
  struct Host : stats::Group {
    Host(stats::Group* parent, const HierarchyStats& top);
    stats::Scalar requests, reads, writes, atomics, read_bytes, write_bytes, bytes, queue_cycles;
    stats::Formula achieved_gbps;
  } host;

 private:
  double peakBytes() const;  // DRAM bytes the channels could move in the kernel
  double gbps(uint64_t bytes) const;  // bytes in the kernel's simulated time, GB/s at the core clock

  uint32_t channels_, bus_bytes_;
  double core_mhz_, dram_mhz_;
  uint64_t period_ps_;
  uint64_t cycles_ = 0;
  HierarchyCounters delta_;
};

}  // namespace rfsim::mem
