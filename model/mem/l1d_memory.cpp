#include "mem/l1d_memory.h"

#include <algorithm>

#include "func/stepper.h"

namespace rfsim::mem {

namespace {

CacheParams l1dParams(const config::GpuConfig& cfg) {
  CacheParams p;
  p.name = "L1D";
  // A configuration without an L1D (size 0) keeps one set: every access
  // still goes through the same path, and the stats show the misses.
  p.size_bytes = std::max<uint64_t>(uint64_t(cfg.l1d.size_kb) * 1024, uint64_t(cfg.l1d.line_bytes) * cfg.l1d.assoc);
  p.assoc = cfg.l1d.assoc;
  p.line_bytes = cfg.l1d.line_bytes;
  p.sector_bytes = 32;  // Volta: 32-byte sectors (Jia et al. 2018)
  p.mshr_entries = cfg.l1d.mshr_entries;
  p.mshr_max_merge = cfg.l1d.mshr_merge;
  return p;
}

WritePolicy policy(config::L1dWrite w) {
  return w == config::L1dWrite::WriteBack ? WritePolicy::WriteBack_Allocate : WritePolicy::WriteThrough_NoAllocate;
}

// Local memory lives above every device allocation: bit 46 set, then
// 2^34 bytes (512 KiB per lane, CUDA's local-memory limit, x 32 lanes) per
// warp slot of the chip.
constexpr uint64_t kLocalPhysBase = 1ull << 46;
constexpr uint64_t kWarpLocalBytes = 512ull * 1024 * 32;
constexpr uint32_t kWarpSlotsPerSm = 64;

}  // namespace

L1dMemory::L1dMemory(const config::GpuConfig& cfg, NextLevel& next, uint32_t sm_id)
    : cfg_(cfg),
      next_(&next),
      sm_id_(sm_id),
      global_wp_(policy(cfg.l1d.global_write)),
      local_wp_(policy(cfg.l1d.local_write)),
      coalescer_(CoalescerParams{cfg.l1d.line_bytes, 32}),
      l1d_(l1dParams(cfg)) {}

L1dMemory::L1dMemory(const config::GpuConfig& cfg, uint64_t next_latency)
    : cfg_(cfg),
      own_next_(std::make_unique<FixedLatencyNextLevel>(next_latency)),
      next_(own_next_.get()),
      sm_id_(0),
      global_wp_(policy(cfg.l1d.global_write)),
      local_wp_(policy(cfg.l1d.local_write)),
      coalescer_(CoalescerParams{cfg.l1d.line_bytes, 32}),
      l1d_(l1dParams(cfg)) {}

double L1dMemory::localShare() const {
  const CacheStats& s = l1d_.stats();
  const uint64_t local = s.by_kind[size_t(AccessKind::LocalLoad)].accesses +
                         s.by_kind[size_t(AccessKind::LocalStore)].accesses;
  return s.accesses ? double(local) / double(s.accesses) : 0.0;
}

uint64_t L1dMemory::localPhysical(uint32_t warp, uint32_t lane, uint64_t addr, uint32_t span) const {
  const uint64_t off = addr - func::kLocalWindow < func::kWindowSize ? addr - func::kLocalWindow : addr;
  const uint64_t region = kLocalPhysBase + (uint64_t(sm_id_) * kWarpSlotsPerSm + warp) * kWarpLocalBytes;
  // Element-interleaved across the warp's lanes: row `off / span` holds
  // lane 0's element, lane 1's, ... (32 x span bytes).
  return region + (off / span) * span * 32 + uint64_t(lane) * span + off % span;
}

void L1dMemory::drainFills(uint64_t now) {
  while (!fills_.empty() && fills_.top().at <= now) {
    const Fill f = fills_.top();
    fills_.pop();
    l1d_.fill(f.line, f.sectors, now);
    auto it = line_ready_.find(f.line);
    if (it != line_ready_.end() && it->second <= now) line_ready_.erase(it);
  }
}

void L1dMemory::send(const LineRequest& r, uint64_t at, bool write, uint8_t mask, uint64_t line) {
  MemRequest q;
  q.line_addr = line;
  q.sector_mask = mask;
  q.write = write;
  q.kind = r.kind;
  if (next_->deferred())  // posted
    next_->defer(q, at);
  else
    next_->request(q, at);
  ++c_.next_writes;
}

uint64_t L1dMemory::fetch(const MemRequest& q, uint64_t at, uint32_t* token) {
  if (!next_->deferred()) return next_->request(q, at);
  const uint32_t t = next_->defer(q, at);
  access_tokens_.push_back(t);
  if (token) *token = t;
  return at;  // the known part: the reply is later, at the phase
}

void L1dMemory::resolve(std::vector<Resolved>& out) {
  for (const PendingFill& f : pending_fills_) {
    const uint64_t at = next_->reply(f.token);
    fills_.push(Fill{at, f.line, f.sectors});
    uint64_t& ready = line_ready_[f.line];
    ready = std::max(ready, at);
  }
  pending_fills_.clear();
  line_tokens_.clear();
  for (const PendingAccess& a : pending_) {
    uint64_t done = a.known;
    for (uint32_t k = a.begin; k < a.end; ++k) done = std::max(done, next_->reply(access_tokens_[k]));
    out.push_back(Resolved{a.id, done - a.now});
  }
  pending_.clear();
  access_tokens_.clear();
}

uint64_t L1dMemory::accessLatency(const func::MemAccess& a, uint32_t warp, uint64_t now) {
  drainFills(now);
  const func::MemAccess* acc = &a;
  if (a.space == ptx::Space::Local) {
    phys_ = a;
    const uint32_t span = uint32_t(a.bytes) * a.elems;
    for (uint32_t l = 0; l < 32; ++l)
      if (a.mask >> l & 1u) phys_.addr[l] = localPhysical(warp, l, a.addr[l], span);
    acc = &phys_;
  }
  coalescer_.coalesce(*acc, reqs_);
  missed_ = false;
  last_pending_ = kNoPending;
  const auto tokens_before = static_cast<uint32_t>(access_tokens_.size());
  const uint64_t hit = cfg_.l1d.latency;
  uint64_t latest = now + hit;
  // The port takes l1d.ports line requests per cycle (slots of 1/ports cycle).
  const uint64_t ports = cfg_.l1d.ports;
  uint64_t slot = std::max(now * ports, port_slot_);
  c_.port_wait_cycles += slot / ports - now;
  for (size_t k = 0; k < reqs_.size(); ++k, ++slot) {
    const uint64_t start = slot / ports;
    const LineRequest& r = reqs_[k];
    ++c_.requests[size_t(r.kind)];
    const bool local = r.kind == AccessKind::LocalLoad || r.kind == AccessKind::LocalStore;
    if (local && cfg_.l1d.local_all_hit) {  // ALL-HIT: the port slot and the hit latency, no cache
      ++c_.all_hits[size_t(r.kind)];
      latest = std::max(latest, start + hit);
      continue;
    }
    // Atomics are performed at the L2: a write-evict store in the L1D.
    const WritePolicy wp = r.atomic ? WritePolicy::WriteThrough_NoAllocate : local ? local_wp_ : global_wp_;
    const bool write = r.write || r.atomic;
    uint64_t t = start;
    AccessResult res = l1d_.access(r.line_addr, r.sector_mask, write, wp, r.kind, ++tag_, t);
    if (res.outcome == Outcome::MshrFull) {
      // Wait for the earliest pending fill, then try again.
      t = fills_.empty() ? start : std::max(start, fills_.top().at);
      c_.mshr_wait_cycles += t - start;
      drainFills(t);
      res = l1d_.access(r.line_addr, r.sector_mask, write, wp, r.kind, ++tag_, t);
    }
    uint64_t done = t + hit;
    if (res.writeback) {
      ++c_.writebacks;
      send(r, done, true, res.writeback_mask, res.writeback_line);
    }
    if (r.atomic) {
      MemRequest q{r.line_addr, r.sector_mask, true, true, r.kind};
      done = fetch(q, done);
      ++c_.next_atomics;
    } else if (write) {
      if (res.forward_write || res.outcome == Outcome::MshrFull) send(r, done, true, r.sector_mask, r.line_addr);
    } else if (res.outcome == Outcome::Miss && res.fetch_mask) {
      MemRequest q{r.line_addr, res.fetch_mask, false, false, r.kind};
      uint32_t token = 0;
      const uint64_t at = fetch(q, done, &token);
      ++c_.next_reads;
      missed_ = true;
      if (next_->deferred()) {
        pending_fills_.push_back(PendingFill{token, r.line_addr, res.fetch_mask});
        line_tokens_[r.line_addr].push_back(token);
      } else {
        fills_.push(Fill{at, r.line_addr, res.fetch_mask});
        uint64_t& ready = line_ready_[r.line_addr];
        ready = std::max(ready, at);
      }
      done = at;
    } else if (res.outcome == Outcome::HitReserved) {
      auto it = line_ready_.find(r.line_addr);
      if (it != line_ready_.end() && it->second > done) {
        done = it->second;
        missed_ = true;  // waits for a pending fill
      }
      auto lt = line_tokens_.find(r.line_addr);
      if (lt != line_tokens_.end()) {  // a fill of this quantum: its reply is not known yet
        access_tokens_.insert(access_tokens_.end(), lt->second.begin(), lt->second.end());
        missed_ = true;
      }
    } else if (res.outcome == Outcome::MshrFull) {
      // Still no room (the line's merge limit): the load bypasses the L1D.
      MemRequest q{r.line_addr, r.sector_mask, false, false, r.kind};
      done = fetch(q, done);
      ++c_.next_reads;
      missed_ = true;
    }
    latest = std::max(latest, done);
  }
  port_slot_ = slot;
  if (access_tokens_.size() > tokens_before) {
    last_pending_ = accesses_++;
    pending_.push_back(PendingAccess{last_pending_, now, latest, tokens_before,
                                     static_cast<uint32_t>(access_tokens_.size())});
  }
  return latest - now;
}

}  // namespace rfsim::mem
