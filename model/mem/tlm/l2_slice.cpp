#include "mem/tlm/l2_slice.h"

#include <string>

#include <fmt/format.h>

#include "common/error.h"

namespace rfsim::mem {

CacheParams L2Slice::cacheParams(const config::GpuConfig& cfg, uint32_t index) {
  CacheParams p;
  p.name = "L2 slice " + std::to_string(index);
  const uint64_t total = uint64_t{cfg.l2.cache.size_kb} * 1024;
  if (total % cfg.l2.num_slices != 0)
    throw Error(fmt::format("{}: l2.size_kb x 1024 = {} bytes does not divide into {} slices", p.name, total,
                            cfg.l2.num_slices));
  // A configuration without an L2 (size 0) keeps one set per slice, as the
  // L1D keeps one line: the same path, and the stats show the misses.
  p.size_bytes = std::max<uint64_t>(total / cfg.l2.num_slices, uint64_t{cfg.l2.cache.assoc} * cfg.l2.cache.line_bytes);
  p.assoc = cfg.l2.cache.assoc;
  p.line_bytes = cfg.l2.cache.line_bytes;
  p.sector_bytes = kSectorBytes;
  p.mshr_entries = cfg.l2.mshr_entries;
  p.mshr_max_merge = cfg.l2.mshr_merge;
  p.hashed_sets = cfg.l2.set_index == config::SetIndex::Ipoly;
  return p;
}

L2Slice::L2Slice(sc_core::sc_module_name name, uint32_t index, const config::GpuConfig& cfg)
    : sc_module(name),
      from_icnt("from_icnt"),
      to_dram("to_dram"),
      index_(index),
      cfg_(cfg),
      period_ps_(corePeriodPs(cfg)),
      map_(cfg.l2.num_slices, cfg.l2.cache.line_bytes) {
  from_icnt.register_b_transport(this, &L2Slice::b_transport);
  configure(cfg);
}

void L2Slice::configure(const config::GpuConfig& cfg) {
  auto cache = std::make_unique<SectorCache>(cacheParams(cfg, index_));  // throws before anything changes
  if (&cfg != &cfg_) cfg_ = cfg;
  latency_ps_ = uint64_t{cfg_.l2.cache.latency} * period_ps_;
  map_ = AddressMap(cfg_.l2.num_slices, cfg_.l2.cache.line_bytes);
  cache_ = std::move(cache);
  port_ = BusyQueue{0, {uint64_t{cfg_.sim.quantum_cycles} * period_ps_, {}}};
  // Sized for one pending fill per MSHR (a line with sector misses on its
  // way can have more), so requests rarely allocate.
  std::vector<Fill> heap;
  heap.reserve(cfg_.l2.mshr_entries);
  fills_ = decltype(fills_)(std::greater<Fill>(), std::move(heap));
  pending_.clear();
  pending_.reserve(cfg_.l2.mshr_entries);
}

uint64_t L2Slice::idleAfterPs() const {
  uint64_t t = port_.busy_until;
  for (const auto& [line, times] : pending_)
    for (uint64_t f : times) t = std::max(t, f);
  return t;
}

void L2Slice::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  const MemExtension* ext = gp.get_extension<MemExtension>();
  const uint32_t full = (1u << cache_->sectorsPerLine()) - 1;
  if (!ext || ext->sector_mask == 0 || (ext->sector_mask & ~full) != 0 ||
      gp.get_data_length() != sectorBytes(ext->sector_mask) || !(gp.is_read() || gp.is_write())) {
    gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    return;
  }
  stamp_ps_ = toPs(sc_core::sc_time_stamp());
  const uint64_t arrival = stamp_ps_ + toPs(delay);
  const uint64_t occupancy = std::max<uint64_t>(1, ceilDiv(gp.get_data_length(), cfg_.l2.bytes_per_cycle));
  const uint64_t t = port_.reserve(arrival, occupancy * period_ps_, stamp_ps_);
  c_.port_queue_ps += t - arrival;
  drain(t);
  const bool atomic = ext->atomic;
  const bool write = gp.is_write() && !atomic;
  const uint64_t line = gp.get_address() & ~uint64_t{cfg_.l2.cache.line_bytes - 1u};
  const uint64_t done = lookup(line, ext->sector_mask, write, atomic, ext->kind, t);
  delay = fromPs(done - stamp_ps_);
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

uint64_t L2Slice::lookup(uint64_t addr, uint8_t mask, bool write, bool atomic, AccessKind kind, uint64_t t) {
  const uint64_t line_bytes = cfg_.l2.cache.line_bytes;
  const uint64_t local = map_.localLine(addr) * line_bytes;
  // An atomic looks up as a load: a miss fetches the data it operates on.
  AccessResult r = access(local, mask, write, kind, t, true);
  if (r.outcome == Outcome::MshrFull) {
    if (!fills_.empty()) t = std::max(t, fills_.top().at);
    drain(t);
    r = access(local, mask, write, kind, t, true);
    if (r.outcome == Outcome::MshrFull) {  // still no room: around the cache
      ++c_.bypasses;
      const uint64_t at = t + latency_ps_;
      if (write) {
        dram(tlm::TLM_WRITE_COMMAND, addr, mask, at);
        return at;
      }
      const uint64_t done = dram(tlm::TLM_READ_COMMAND, addr, mask, at);
      if (atomic) dram(tlm::TLM_WRITE_COMMAND, addr, mask, done);
      return done;
    }
  }
  const uint64_t ready = t + latency_ps_;
  if (r.fetch_mask != 0) {
    const uint64_t f = dram(tlm::TLM_READ_COMMAND, addr, r.fetch_mask, ready);
    fills_.push(Fill{f, local, r.fetch_mask});
    auto& times = pending_[local];
    for (uint32_t s = 0; s < times.size(); ++s)
      if ((r.fetch_mask >> s) & 1u) times[s] = f;
  }
  uint64_t done = ready;
  if (!write) done = std::max(done, pendingUntil(local, mask));  // a miss's or a merged request's fill
  if (atomic) access(local, mask, true, kind, t, false);         // the result is written: dirty
  if (r.writeback)  // the victim, after the demand fetch
    dram(tlm::TLM_WRITE_COMMAND, map_.lineAddr(index_, r.writeback_line / line_bytes), r.writeback_mask, ready);
  return done;
}

AccessResult L2Slice::access(uint64_t local_addr, uint8_t mask, bool write, AccessKind kind, uint64_t t,
                             bool counted) {
  const uint64_t evictions = cache_->stats().evictions, sector_misses = cache_->stats().sector_misses;
  const AccessResult r =
      cache_->access(local_addr, mask, write, WritePolicy::WriteBack_Allocate, kind, ++tag_, t / period_ps_);
  c_.evictions += cache_->stats().evictions - evictions;
  if (counted) c_.sector_misses += cache_->stats().sector_misses - sector_misses;
  if (r.writeback) ++c_.writebacks;
  if (counted) {
    KindCounters& k = c_.by_kind[static_cast<size_t>(kind)];
    ++k.accesses;
    switch (r.outcome) {
      case Outcome::Hit: ++k.hits; break;
      case Outcome::HitReserved: ++k.hit_reserved; break;
      case Outcome::Miss: ++k.misses; break;
      case Outcome::MshrFull: ++k.mshr_full; break;
    }
  }
  return r;
}

void L2Slice::warm(uint64_t addr, uint8_t mask, bool write) {
  const uint64_t t = idleAfterPs();
  drain(t);  // every fill done: no sector is reserved, no MSHR taken
  const uint64_t local = map_.localLine(addr) * cfg_.l2.cache.line_bytes;
  const uint64_t now = t / period_ps_;
  const AccessResult r = cache_->access(local, mask, write, WritePolicy::WriteBack_Allocate,
                                        write ? AccessKind::GlobalStore : AccessKind::GlobalLoad, ++tag_, now);
  if (r.fetch_mask != 0) cache_->fill(local, r.fetch_mask, now);
}

void L2Slice::drain(uint64_t t) {
  while (!fills_.empty() && fills_.top().at <= t) {
    const Fill f = fills_.top();
    fills_.pop();
    cache_->fill(f.line, f.sectors, f.at / period_ps_);
    auto it = pending_.find(f.line);
    if (it == pending_.end()) continue;
    bool any = false;
    for (uint32_t s = 0; s < it->second.size(); ++s) {
      if ((f.sectors >> s) & 1u) it->second[s] = 0;
      any = any || it->second[s] != 0;
    }
    if (!any) pending_.erase(it);
  }
}

uint64_t L2Slice::pendingUntil(uint64_t local_addr, uint8_t mask) const {
  const auto it = pending_.find(local_addr);
  if (it == pending_.end()) return 0;
  uint64_t t = 0;
  for (uint32_t s = 0; s < it->second.size(); ++s)
    if ((mask >> s) & 1u) t = std::max(t, it->second[s]);
  return t;
}

uint64_t L2Slice::dram(tlm::tlm_command cmd, uint64_t addr, uint8_t mask, uint64_t at) {
  const uint32_t len = sectorBytes(mask);
  dram_gp_.set_command(cmd);
  dram_gp_.set_address(addr);
  dram_gp_.set_data_ptr(scratch_.data());
  dram_gp_.set_data_length(len);
  dram_gp_.set_streaming_width(len);
  dram_gp_.set_byte_enable_ptr(nullptr);
  dram_gp_.set_byte_enable_length(0);
  dram_gp_.set_dmi_allowed(false);
  dram_gp_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time d = fromPs(at - stamp_ps_);
  to_dram->b_transport(dram_gp_, d);
  if (dram_gp_.is_response_error())
    throw Error(fmt::format("{}: DRAM {} of line {:#x} answered {}", name(),
                            cmd == tlm::TLM_READ_COMMAND ? "read" : "write", addr, dram_gp_.get_response_string()));
  return stamp_ps_ + toPs(d);
}

}  // namespace rfsim::mem
