#include "mem/tlm/hierarchy.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "common/error.h"

namespace rfsim::mem {

namespace {

bool sameDram(const config::DramConfig& x, const config::DramConfig& y) {
  return x.num_channels == y.num_channels && x.clock_mhz == y.clock_mhz && x.bus_bytes == y.bus_bytes &&
         x.latency == y.latency && x.banks == y.banks && x.bank_groups == y.bank_groups &&
         x.row_bytes == y.row_bytes && x.t_rcd == y.t_rcd && x.t_rp == y.t_rp && x.t_ras == y.t_ras &&
         x.t_cl == y.t_cl && x.t_cwl == y.t_cwl && x.t_ccd_s == y.t_ccd_s && x.t_ccd_l == y.t_ccd_l &&
         x.t_rrd == y.t_rrd && x.t_faw == y.t_faw && x.t_wtr == y.t_wtr && x.t_rtw == y.t_rtw && x.t_wr == y.t_wr &&
         x.t_rtp == y.t_rtp && x.queue_depth == y.queue_depth && x.scheduler == y.scheduler &&
         x.bank_map == y.bank_map;
}

// The parameters the memory side reads, beyond the shape.
bool sameMemory(const config::GpuConfig& a, const config::GpuConfig& b) {
  const auto& x = a.l2;
  const auto& y = b.l2;
  return x.cache.size_kb == y.cache.size_kb && x.cache.assoc == y.cache.assoc &&
         x.cache.line_bytes == y.cache.line_bytes && x.cache.latency == y.cache.latency &&
         x.num_slices == y.num_slices && x.mshr_entries == y.mshr_entries && x.mshr_merge == y.mshr_merge &&
         x.bytes_per_cycle == y.bytes_per_cycle && a.icnt.latency == b.icnt.latency &&
         a.icnt.bytes_per_cycle == b.icnt.bytes_per_cycle && sameDram(a.dram, b.dram) &&
         a.gpu.clock_mhz == b.gpu.clock_mhz && a.l1d.line_bytes == b.l1d.line_bytes &&
         a.sim.quantum_cycles == b.sim.quantum_cycles && a.host_link.latency_ns == b.host_link.latency_ns &&
         a.host_link.bytes_per_ns == b.host_link.bytes_per_ns;
}

void sub(KindCounters& d, const KindCounters& a, const KindCounters& b) {
  d.accesses = a.accesses - b.accesses;
  d.hits = a.hits - b.hits;
  d.hit_reserved = a.hit_reserved - b.hit_reserved;
  d.misses = a.misses - b.misses;
  d.mshr_full = a.mshr_full - b.mshr_full;
}

void add(KindCounters& d, const KindCounters& a) {
  d.accesses += a.accesses;
  d.hits += a.hits;
  d.hit_reserved += a.hit_reserved;
  d.misses += a.misses;
  d.mshr_full += a.mshr_full;
}

std::vector<std::string> kindNames() {
  std::vector<std::string> v;
  for (size_t k = 0; k < kNumAccessKinds; ++k) v.push_back(accessKindName(static_cast<AccessKind>(k)));
  return v;
}

}  // namespace

HierarchyCounters operator-(const HierarchyCounters& a, const HierarchyCounters& b) {
  // An empty `b` (a default snapshot) counts as zero.
  if (!b.slice_accesses.empty() && a.slice_accesses.size() != b.slice_accesses.size())
    throw Error(fmt::format("memory hierarchy counters of {} and {} slices cannot be subtracted",
                            a.slice_accesses.size(), b.slice_accesses.size()));
  HierarchyCounters d;
  sub(d.l2, a.l2, b.l2);
  for (size_t k = 0; k < kNumAccessKinds; ++k) sub(d.l2_by_kind[k], a.l2_by_kind[k], b.l2_by_kind[k]);
  d.l2_evictions = a.l2_evictions - b.l2_evictions;
  d.l2_sector_misses = a.l2_sector_misses - b.l2_sector_misses;
  d.l2_writebacks = a.l2_writebacks - b.l2_writebacks;
  d.l2_bypasses = a.l2_bypasses - b.l2_bypasses;
  d.l2_port_queue_ps = a.l2_port_queue_ps - b.l2_port_queue_ps;
  d.slice_accesses = a.slice_accesses;
  for (size_t i = 0; i < b.slice_accesses.size(); ++i) d.slice_accesses[i] -= b.slice_accesses[i];
  d.dram_reads = a.dram_reads - b.dram_reads;
  d.dram_writes = a.dram_writes - b.dram_writes;
  d.dram_read_bytes = a.dram_read_bytes - b.dram_read_bytes;
  d.dram_write_bytes = a.dram_write_bytes - b.dram_write_bytes;
  d.dram_busy_ps = a.dram_busy_ps - b.dram_busy_ps;
  d.dram_queue_ps = a.dram_queue_ps - b.dram_queue_ps;
  d.dram_row_hits = a.dram_row_hits - b.dram_row_hits;
  d.dram_row_misses = a.dram_row_misses - b.dram_row_misses;
  d.dram_row_conflicts = a.dram_row_conflicts - b.dram_row_conflicts;
  d.icnt_requests = a.icnt_requests - b.icnt_requests;
  d.icnt_replies = a.icnt_replies - b.icnt_replies;
  d.icnt_request_bytes = a.icnt_request_bytes - b.icnt_request_bytes;
  d.icnt_reply_bytes = a.icnt_reply_bytes - b.icnt_reply_bytes;
  d.icnt_request_queue_ps = a.icnt_request_queue_ps - b.icnt_request_queue_ps;
  d.icnt_reply_queue_ps = a.icnt_reply_queue_ps - b.icnt_reply_queue_ps;
  d.host_reads = a.host_reads - b.host_reads;
  d.host_writes = a.host_writes - b.host_writes;
  d.host_atomics = a.host_atomics - b.host_atomics;
  d.host_read_bytes = a.host_read_bytes - b.host_read_bytes;
  d.host_write_bytes = a.host_write_bytes - b.host_write_bytes;
  d.host_queue_ps = a.host_queue_ps - b.host_queue_ps;
  return d;
}

detail::ElaborationGuard::ElaborationGuard() {
  if (sc_core::sc_get_status() != sc_core::SC_ELABORATION)
    throw Error("memory hierarchy: SystemC modules can only be created during elaboration, before the "
                "first sc_start() of the process");
}

void MemoryHierarchy::check(const config::GpuConfig& cfg) {
  if (unitsPerPs() == 0) throw Error("memory hierarchy: SystemC's time resolution is coarser than 1 ps");
  if (cfg.l1d.line_bytes != cfg.l2.cache.line_bytes)
    throw Error(fmt::format("memory hierarchy: l1d.line_bytes {} differs from l2.line_bytes {} (a request's "
                            "sector mask is relative to one line size)",
                            cfg.l1d.line_bytes, cfg.l2.cache.line_bytes));
  if (cfg.l2.num_slices % cfg.dram.num_channels != 0)
    throw Error(fmt::format("memory hierarchy: l2.num_slices {} is not a multiple of dram.num_channels {}",
                            cfg.l2.num_slices, cfg.dram.num_channels));
  (void)AddressMap(cfg.l2.num_slices, cfg.l2.cache.line_bytes);
  const SectorCache probe(L2Slice::cacheParams(cfg, 0));  // every slice has the same geometry
}

MemoryHierarchy::MemoryHierarchy(sc_core::sc_module_name name, const config::GpuConfig& cfg,
                                 uint32_t num_sm_ports)
    : sc_module(name), cfg_(cfg), period_ps_(corePeriodPs(cfg)) {
  if (num_sm_ports == 0) throw Error("memory hierarchy: no SM ports");
  check(cfg);
  icnt_ = std::make_unique<Interconnect>("icnt", cfg, num_sm_ports);
  for (uint32_t i = 0; i < num_sm_ports; ++i) {
    ports_.push_back(std::make_unique<SmPort>(fmt::format("sm_port{}", i).c_str(), i, period_ps_));
    ports_.back()->socket.bind(icnt_->from_sm);  // socket index i
  }
  for (uint32_t c = 0; c < cfg.dram.num_channels; ++c)
    channels_.push_back(std::make_unique<DramChannel>(fmt::format("dram{}", c).c_str(), c, cfg));
  for (uint32_t s = 0; s < cfg.l2.num_slices; ++s) {
    slices_.push_back(std::make_unique<L2Slice>(fmt::format("l2_slice{}", s).c_str(), s, cfg));
    icnt_->to_l2.bind(slices_.back()->from_icnt);  // socket index s
    slices_.back()->to_dram.bind(channels_[channelOf(s)]->from_l2);
  }
}

MemoryHierarchy::~MemoryHierarchy() = default;

SmPort& MemoryHierarchy::port(uint32_t sm) {
  if (sm >= ports_.size())
    throw Error(fmt::format("memory hierarchy: no port for SM {} ({} ports)", sm, ports_.size()));
  return *ports_[sm];
}

bool MemoryHierarchy::sameShape(const config::GpuConfig& cfg, uint32_t num_sm_ports) const {
  return num_sm_ports == numPorts() && cfg.l2.num_slices == numSlices() && cfg.dram.num_channels == numChannels() &&
         corePeriodPs(cfg) == period_ps_;
}

void MemoryHierarchy::reconfigure(const config::GpuConfig& cfg) {
  if (cfg.l2.num_slices != numSlices() || cfg.dram.num_channels != numChannels() || corePeriodPs(cfg) != period_ps_)
    throw Error(fmt::format("memory hierarchy: built for {} slices, {} channels and a {} ps clock, asked for {}, "
                            "{} and {} ps",
                            numSlices(), numChannels(), period_ps_, cfg.l2.num_slices, cfg.dram.num_channels,
                            corePeriodPs(cfg)));
  if (sameMemory(cfg, cfg_)) {
    cfg_ = cfg;  // nothing the memory side reads changed: the L2 stays warm
    return;
  }
  check(cfg);
  cfg_ = cfg;
  icnt_->configure(cfg_);
  for (auto& s : slices_) s->configure(cfg_);
  for (auto& c : channels_) c->configure(cfg_);
}

void MemoryHierarchy::reset() {
  icnt_->reset();
  for (auto& s : slices_) s->reset();
  for (auto& c : channels_) c->reset();
}

HierarchyCounters MemoryHierarchy::counters() const {
  HierarchyCounters h;
  for (const auto& s : slices_) {
    const L2Slice::Counters& c = s->counters();
    uint64_t n = 0;
    for (size_t k = 0; k < kNumAccessKinds; ++k) {
      add(h.l2_by_kind[k], c.by_kind[k]);
      add(h.l2, c.by_kind[k]);
      n += c.by_kind[k].accesses;
    }
    h.slice_accesses.push_back(n);
    h.l2_evictions += c.evictions;
    h.l2_sector_misses += c.sector_misses;
    h.l2_writebacks += c.writebacks;
    h.l2_bypasses += c.bypasses;
    h.l2_port_queue_ps += c.port_queue_ps;
  }
  for (const auto& ch : channels_) {
    const DramChannel::Counters& c = ch->counters();
    h.dram_reads += c.reads;
    h.dram_writes += c.writes;
    h.dram_read_bytes += c.read_bytes;
    h.dram_write_bytes += c.write_bytes;
    h.dram_busy_ps += c.busy_ps;
    h.dram_queue_ps += c.queue_ps;
    h.dram_row_hits += c.row_hits;
    h.dram_row_misses += c.row_misses;
    h.dram_row_conflicts += c.row_conflicts;
  }
  const Interconnect::Counters& i = icnt_->counters();
  h.icnt_requests = i.requests;
  h.icnt_replies = i.replies;
  h.icnt_request_bytes = i.request_bytes;
  h.icnt_reply_bytes = i.reply_bytes;
  h.icnt_request_queue_ps = i.request_queue_ps;
  h.icnt_reply_queue_ps = i.reply_queue_ps;
  const HostLink::Counters& hl = icnt_->hostLink().counters();
  h.host_reads = hl.reads;
  h.host_writes = hl.writes;
  h.host_atomics = hl.atomics;
  h.host_read_bytes = hl.read_bytes;
  h.host_write_bytes = hl.write_bytes;
  h.host_queue_ps = hl.queue_ps;
  return h;
}

sc_core::sc_time MemoryHierarchy::idleAfter() const {
  uint64_t t = icnt_->idleAfterPs();
  for (const auto& s : slices_) t = std::max(t, s->idleAfterPs());
  for (const auto& c : channels_) t = std::max(t, c->idleAfterPs());
  return fromPs(t);
}

void MemoryHierarchy::endElaboration() { mem::endElaboration(); }

// ---------------------------------------------------------------------------
// Statistics

HierarchyStats::L2::L2(stats::Group* parent, uint32_t num_slices)
    : Group(parent, "l2", "L2 cache, all slices"),
      ADD_STAT(accesses, stats::unit::Count, "tag lookups (a request retried after an MSHR-full lookup counts again)"),
      ADD_STAT(hits, stats::unit::Count, "lookups that found every requested sector"),
      ADD_STAT(hit_reserved, stats::unit::Count, "lookups merged into a pending miss (they wait for its fill)"),
      ADD_STAT(misses, stats::unit::Count, "lookups that fetched sectors from DRAM (line or sector misses)"),
      ADD_STAT(mshr_full, stats::unit::Count, "lookups refused for lack of an MSHR, merge slot or way"),
      ADD_STAT(accesses_by_kind, stats::unit::Count, "lookups per access kind", kNumAccessKinds, kindNames()),
      ADD_STAT(hits_by_kind, stats::unit::Count, "hits per access kind", kNumAccessKinds, kindNames()),
      ADD_STAT(hit_reserved_by_kind, stats::unit::Count, "hit-reserved lookups per access kind", kNumAccessKinds,
               kindNames()),
      ADD_STAT(misses_by_kind, stats::unit::Count, "misses per access kind", kNumAccessKinds, kindNames()),
      ADD_STAT(mshr_full_by_kind, stats::unit::Count, "MSHR-full lookups per access kind", kNumAccessKinds,
               kindNames()),
      ADD_STAT(hit_rate, stats::unit::Ratio, "hits / requests (lookups less MSHR-full retries; hit-reserved "
               "lookups are not hits)",
               [this] {
                 const double req = double(accesses.get()) - double(mshr_full.get());
                 return req > 0 ? double(hits.get()) / req : std::numeric_limits<double>::quiet_NaN();
               }),
      ADD_STAT(evictions, stats::unit::Count, "valid lines replaced"),
      ADD_STAT(writebacks, stats::unit::Count, "dirty victims written back to DRAM"),
      ADD_STAT(bypasses, stats::unit::Count, "requests sent around the cache after a second MSHR-full lookup"),
      ADD_STAT(port_queue_cycles, stats::unit::Cycle, "cycles requests waited for a slice's tag/data port, summed"),
      ADD_STAT(slice_accesses, stats::unit::Count, "lookups per slice", num_slices),
      ADD_STAT(slice_imbalance, stats::unit::Ratio, "lookups of the busiest slice / mean lookups per slice", [this] {
        uint64_t mx = 0;
        for (size_t i = 0; i < slice_accesses.size(); ++i) mx = std::max(mx, slice_accesses[i]);
        const double mean = double(slice_accesses.total()) / double(slice_accesses.size());
        return mean > 0 ? double(mx) / mean : std::numeric_limits<double>::quiet_NaN();
      }) {}

HierarchyStats::Dram::Dram(stats::Group* parent, const HierarchyStats& top)
    : Group(parent, "dram", "DRAM channels, all of them"),
      ADD_STAT(reads, stats::unit::Count, "read requests (L2 fills and bypassing reads)"),
      ADD_STAT(writes, stats::unit::Count, "write requests (dirty L2 victims and bypassing writes)"),
      ADD_STAT(requests, stats::unit::Count, "read and write requests"),
      ADD_STAT(read_bytes, stats::unit::Byte, "bytes read"),
      ADD_STAT(write_bytes, stats::unit::Byte, "bytes written"),
      ADD_STAT(busy_cycles, stats::unit::Cycle, "core cycles of data-bus transfers, summed over channels"),
      ADD_STAT(queue_cycles, stats::unit::Cycle,
               "core cycles requests' column commands came later than their row state alone allows (busy banks, "
               "the bus, turnarounds, a full queue), summed"),
      ADD_STAT(row_hits, stats::unit::Count, "requests that found their row open"),
      ADD_STAT(row_misses, stats::unit::Count, "requests that found their bank precharged (activate)"),
      ADD_STAT(row_conflicts, stats::unit::Count, "requests that found another row open (precharge, activate)"),
      ADD_STAT(bandwidth_utilisation, stats::unit::Ratio,
               "bytes moved / (channels x bus_bytes x DRAM clock / core clock x kernel cycles)",
               [this, &top] {
                 const double peak = top.peakBytes();
                 return peak > 0 ? double(read_bytes.get() + write_bytes.get()) / peak
                                 : std::numeric_limits<double>::quiet_NaN();
               }),
      ADD_STAT(busy_share, stats::unit::Ratio, "bus busy time / (channels x kernel time)",
               [&top] {
                 const double t = double(top.channels_) * double(top.cycles_) * double(top.period_ps_);
                 return t > 0 ? double(top.delta_.dram_busy_ps) / t : std::numeric_limits<double>::quiet_NaN();
               }),
      ADD_STAT(achieved_gbps, stats::unit::Rate,
               "achieved DRAM bandwidth in GB (1e9 bytes) per second of simulated time, at the core clock",
               [this, &top] { return top.gbps(read_bytes.get() + write_bytes.get()); }),
      ADD_STAT(row_hit_rate, stats::unit::Ratio, "row hits / requests",
               [this] {
                 const double n = double(row_hits.get() + row_misses.get() + row_conflicts.get());
                 return n > 0 ? double(row_hits.get()) / n : std::numeric_limits<double>::quiet_NaN();
               }),
      ADD_STAT(mean_queue_cycles, stats::unit::Cycle, "mean core cycles a request waited (queue_cycles / requests)", [&top] {
        const uint64_t n = top.delta_.dram_reads + top.delta_.dram_writes;
        return n ? double(top.delta_.dram_queue_ps) / double(top.period_ps_) / double(n)
                 : std::numeric_limits<double>::quiet_NaN();
      }) {}

HierarchyStats::Icnt::Icnt(stats::Group* parent, const HierarchyStats& top)
    : Group(parent, "icnt", "crossbar between the SMs and the L2 slices"),
      ADD_STAT(requests, stats::unit::Count, "requests carried to the slices"),
      ADD_STAT(replies, stats::unit::Count, "replies with data carried back (reads, atomics; writes are acked)"),
      ADD_STAT(request_bytes, stats::unit::Byte, "data bytes carried to the slices (stores, atomic operands)"),
      ADD_STAT(reply_bytes, stats::unit::Byte, "data bytes carried back to the SMs"),
      ADD_STAT(bytes, stats::unit::Byte, "data bytes carried, both directions"),
      ADD_STAT(request_queue_cycles, stats::unit::Cycle, "core cycles requests waited for a slice's input port, summed"),
      ADD_STAT(reply_queue_cycles, stats::unit::Cycle, "core cycles replies waited for an SM's input port, summed"),
      ADD_STAT(mean_request_queue_cycles, stats::unit::Cycle, "mean core cycles a request waited for its slice port",
               [&top] {
                 return top.delta_.icnt_requests ? double(top.delta_.icnt_request_queue_ps) /
                                                       double(top.period_ps_) / double(top.delta_.icnt_requests)
                                                 : std::numeric_limits<double>::quiet_NaN();
               }),
      ADD_STAT(mean_reply_queue_cycles, stats::unit::Cycle, "mean core cycles a reply waited for its SM port",
               [&top] {
                 return top.delta_.icnt_replies ? double(top.delta_.icnt_reply_queue_ps) /
                                                      double(top.period_ps_) / double(top.delta_.icnt_replies)
                                                : std::numeric_limits<double>::quiet_NaN();
               }) {}

HierarchyStats::Host::Host(stats::Group* parent, const HierarchyStats& top)
    : Group(parent, "host", "the link to host memory: accesses to mapped host memory (PCIe, NVLink-C2C)"),
      ADD_STAT(requests, stats::unit::Count, "requests to host memory (reads, writes, atomics)"),
      ADD_STAT(reads, stats::unit::Count, "read requests to host memory"),
      ADD_STAT(writes, stats::unit::Count, "write requests to host memory (posted)"),
      ADD_STAT(atomics, stats::unit::Count, "atomic requests to host memory"),
      ADD_STAT(read_bytes, stats::unit::Byte, "bytes from host memory (reads, atomics' old values)"),
      ADD_STAT(write_bytes, stats::unit::Byte, "bytes to host memory (writes, atomics' operands)"),
      ADD_STAT(bytes, stats::unit::Byte, "bytes over the host link, both directions"),
      ADD_STAT(queue_cycles, stats::unit::Cycle, "core cycles requests waited for a direction of the link, summed"),
      ADD_STAT(achieved_gbps, stats::unit::Rate,
               "bytes over the host link in GB (1e9 bytes) per second of simulated time, at the core clock",
               [this, &top] { return top.gbps(bytes.get()); }) {}

HierarchyStats::HierarchyStats(stats::Group* parent, const std::string& name, const config::GpuConfig& cfg)
    : Group(parent, name, "memory below the L1Ds: crossbar, L2 slices, DRAM (TLM-2.0)"),
      l2(this, cfg.l2.num_slices),
      dram(this, *this),
      icnt(this, *this),
      host(this, *this),
      channels_(cfg.dram.num_channels),
      bus_bytes_(cfg.dram.bus_bytes),
      core_mhz_(cfg.gpu.clock_mhz),
      dram_mhz_(cfg.dram.clock_mhz),
      period_ps_(corePeriodPs(cfg)) {}

double HierarchyStats::gbps(uint64_t bytes) const {
  return cycles_ ? double(bytes) * core_mhz_ / (double(cycles_) * 1e3) : std::numeric_limits<double>::quiet_NaN();
}

double HierarchyStats::peakBytes() const {
  return double(channels_) * double(bus_bytes_) * (dram_mhz_ / core_mhz_) * double(cycles_);
}

void HierarchyStats::set(const HierarchyCounters& d, uint64_t kernel_cycles) {
  if (!d.slice_accesses.empty() && d.slice_accesses.size() != l2.slice_accesses.size())
    throw Error(fmt::format("memory statistics for {} slices given counters of {}", l2.slice_accesses.size(),
                            d.slice_accesses.size()));
  delta_ = d;
  cycles_ = kernel_cycles;
  const auto cycles = [this](uint64_t ps) { return (ps + period_ps_ / 2) / period_ps_; };
  l2.accesses = d.l2.accesses;
  l2.hits = d.l2.hits;
  l2.hit_reserved = d.l2.hit_reserved;
  l2.misses = d.l2.misses;
  l2.mshr_full = d.l2.mshr_full;
  for (size_t k = 0; k < kNumAccessKinds; ++k) {
    l2.accesses_by_kind[k] = d.l2_by_kind[k].accesses;
    l2.hits_by_kind[k] = d.l2_by_kind[k].hits;
    l2.hit_reserved_by_kind[k] = d.l2_by_kind[k].hit_reserved;
    l2.misses_by_kind[k] = d.l2_by_kind[k].misses;
    l2.mshr_full_by_kind[k] = d.l2_by_kind[k].mshr_full;
  }
  l2.evictions = d.l2_evictions;
  l2.writebacks = d.l2_writebacks;
  l2.bypasses = d.l2_bypasses;
  l2.port_queue_cycles = cycles(d.l2_port_queue_ps);
  for (size_t i = 0; i < l2.slice_accesses.size(); ++i)
    l2.slice_accesses[i] = i < d.slice_accesses.size() ? d.slice_accesses[i] : 0;
  dram.reads = d.dram_reads;
  dram.writes = d.dram_writes;
  dram.requests = d.dram_reads + d.dram_writes;
  dram.read_bytes = d.dram_read_bytes;
  dram.write_bytes = d.dram_write_bytes;
  dram.busy_cycles = cycles(d.dram_busy_ps);
  dram.queue_cycles = cycles(d.dram_queue_ps);
  dram.row_hits = d.dram_row_hits;
  dram.row_misses = d.dram_row_misses;
  dram.row_conflicts = d.dram_row_conflicts;
  icnt.requests = d.icnt_requests;
  icnt.replies = d.icnt_replies;
  icnt.request_bytes = d.icnt_request_bytes;
  icnt.reply_bytes = d.icnt_reply_bytes;
  icnt.bytes = d.icnt_request_bytes + d.icnt_reply_bytes;
  icnt.request_queue_cycles = cycles(d.icnt_request_queue_ps);
  icnt.reply_queue_cycles = cycles(d.icnt_reply_queue_ps);
  host.reads = d.host_reads;
  host.writes = d.host_writes;
  host.atomics = d.host_atomics;
  host.requests = d.host_reads + d.host_writes + d.host_atomics;
  host.read_bytes = d.host_read_bytes;
  host.write_bytes = d.host_write_bytes;
  host.bytes = d.host_read_bytes + d.host_write_bytes;
  host.queue_cycles = cycles(d.host_queue_ps);
}

}  // namespace rfsim::mem
