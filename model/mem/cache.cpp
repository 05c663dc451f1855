#include "mem/cache.h"

#include <cstdio>
#include <string>

#include "common/error.h"

namespace rfsim::mem {

namespace {

bool isPow2(uint64_t x) { return x != 0 && (x & (x - 1)) == 0; }

uint32_t log2u(uint64_t x) {
  uint32_t s = 0;
  while ((uint64_t{1} << s) < x) ++s;
  return s;
}

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

const char* outcomeName(Outcome o) {
  switch (o) {
    case Outcome::Hit: return "hit";
    case Outcome::HitReserved: return "hit_reserved";
    case Outcome::Miss: return "miss";
    case Outcome::MshrFull: return "mshr_full";
  }
  return "?";
}

SectorCache::SectorCache(const CacheParams& p) : p_(p) {
  const std::string& n = p.name;
  if (!isPow2(p.line_bytes))
    throw Error(n + ": line_bytes " + std::to_string(p.line_bytes) + " is not a power of two");
  if (!isPow2(p.sector_bytes))
    throw Error(n + ": sector_bytes " + std::to_string(p.sector_bytes) + " is not a power of two");
  if (p.sector_bytes > p.line_bytes)
    throw Error(n + ": sector_bytes " + std::to_string(p.sector_bytes) + " does not divide line_bytes " +
                std::to_string(p.line_bytes));
  if (p.line_bytes / p.sector_bytes > 8)
    throw Error(n + ": line_bytes / sector_bytes = " + std::to_string(p.line_bytes / p.sector_bytes) +
                " sectors per line, more than the 8 a sector mask holds");
  if (p.assoc == 0) throw Error(n + ": assoc is 0");
  const uint64_t way_bytes = uint64_t{p.assoc} * p.line_bytes;
  if (p.size_bytes == 0 || p.size_bytes % way_bytes != 0)
    throw Error(n + ": size_bytes " + std::to_string(p.size_bytes) + " is not a multiple of assoc x line_bytes = " +
                std::to_string(way_bytes));
  const uint64_t sets = p.size_bytes / way_bytes;
  // The set index (the line number's low bits, or its IPOLY hash: hashed_sets)
  // needs a power of two.
  if (!isPow2(sets) || sets > (uint64_t{1} << 31))
    throw Error(n + ": size_bytes / (assoc x line_bytes) = " + std::to_string(sets) +
                " sets, not a power of two");
  if (p.mshr_entries == 0) throw Error(n + ": mshr_entries is 0");
  if (p.mshr_max_merge == 0) throw Error(n + ": mshr_max_merge is 0");

  sets_ = static_cast<uint32_t>(sets);
  if (p.hashed_sets) {
    if (sets > (uint64_t{1} << Ipoly::kMaxDegree))
      throw Error(n + ": " + std::to_string(sets) + " sets, more than the hashed set index's " +
                  std::to_string(uint64_t{1} << Ipoly::kMaxDegree));
    set_hash_ = Ipoly(log2u(sets_));
  }
  line_shift_ = log2u(p.line_bytes);
  full_mask_ = static_cast<uint8_t>((1u << (p.line_bytes / p.sector_bytes)) - 1u);
  lines_.resize(static_cast<size_t>(sets_) * p.assoc);
  key_.assign(lines_.size(), 0);
  mshr_.resize(p.mshr_entries);
  waiters_.resize(static_cast<size_t>(p.mshr_entries) * p.mshr_max_merge);
  free_mshr_.reserve(p.mshr_entries);
  for (uint32_t i = p.mshr_entries; i-- > 0;) free_mshr_.push_back(i);
  done_.reserve(p.mshr_max_merge);
}

SectorCache::Line* SectorCache::find(uint64_t line_no) {
  const size_t base = setBase(line_no);
  const uint64_t* k = &key_[base];
  const uint64_t want = line_no + 1;
  for (uint32_t w = 0; w < p_.assoc; ++w)
    if (k[w] == want) return &lines_[base + w];
  return nullptr;
}

const SectorCache::Line* SectorCache::find(uint64_t line_no) const {
  return const_cast<SectorCache*>(this)->find(line_no);
}

// tag_array::probe: the first invalid way, else the least recently used way
// with no sector reserved (ties cannot happen: seq is unique).
SectorCache::Line* SectorCache::victim(uint64_t line_no) {
  const size_t base = setBase(line_no);
  Line* set = &lines_[base];
  const uint64_t* k = &key_[base];
  for (uint32_t w = 0; w < p_.assoc; ++w)
    if (k[w] == 0) return &set[w];  // the first way not present
  Line* best = nullptr;
  for (uint32_t w = 0; w < p_.assoc; ++w) {
    Line& l = set[w];
    if (l.reserved != 0) continue;
    if (!best || l.last_use < best->last_use || (l.last_use == best->last_use && l.seq < best->seq)) best = &l;
  }
  return best;
}

void SectorCache::touch(Line& l, uint64_t now) {
  l.last_use = now;
  l.seq = ++seq_;
}

void SectorCache::evict(Line& l, AccessResult& r) {
  if (!l.present()) return;
  ++stats_.evictions;
  if (l.dirty != 0) {
    r.writeback = true;
    r.writeback_line = l.line_no << line_shift_;
    r.writeback_mask = l.dirty;
    ++stats_.dirty_writebacks;
  }
  l = Line{};
  setKey(l, 0);
}

void SectorCache::checkMask(uint8_t sector_mask, const char* what) const {
  if (sector_mask == 0 || (sector_mask & ~full_mask_) != 0)
    throw Error(p_.name + ": " + what + " sector mask " + hex(sector_mask) + " is empty or beyond the line's " +
                std::to_string(p_.line_bytes / p_.sector_bytes) + " sectors");
}

AccessResult SectorCache::count(AccessResult r, AccessKind kind) {
  KindCounters& k = stats_.by_kind[static_cast<size_t>(kind)];
  ++stats_.accesses;
  ++k.accesses;
  switch (r.outcome) {
    case Outcome::Hit: ++stats_.hits, ++k.hits; break;
    case Outcome::HitReserved: ++stats_.hit_reserved, ++k.hit_reserved; break;
    case Outcome::Miss: ++stats_.misses, ++k.misses; break;
    case Outcome::MshrFull: ++stats_.mshr_full, ++k.mshr_full; break;
  }
  return r;
}

AccessResult SectorCache::access(uint64_t line_addr, uint8_t m, bool write, WritePolicy wp, AccessKind kind,
                                 uint64_t tag, uint64_t now) {
  checkMask(m, "access");
  const uint64_t line_no = line_addr >> line_shift_;
  Line* l = find(line_no);
  AccessResult r;

  if (write && wp == WritePolicy::WriteThrough_NoAllocate) {
    // Write-evict: written sectors leave the cache; sectors on their way
    // stay reserved for the loads waiting on them (data are not modelled).
    r.forward_write = true;
    ++stats_.writes_forwarded;
    r.outcome = Outcome::Miss;
    if (l) {
      if ((m & ~l->valid) == 0) r.outcome = Outcome::Hit;
      const uint8_t lost = m & l->valid & l->dirty;  // only a line that also took write-back stores
      if (lost != 0) {
        r.writeback = true;
        r.writeback_line = line_no << line_shift_;
        r.writeback_mask = lost;
        ++stats_.dirty_writebacks;
      }
      l->valid &= static_cast<uint8_t>(~m);
      l->dirty &= static_cast<uint8_t>(~lost);
      if (!l->present()) {
        *l = Line{};
        setKey(*l, 0);
      }
    }
    return count(r, kind);
  }

  if (write) {  // write-back, write-allocate, whole sectors
    if (l) {
      r.outcome = (m & ~l->valid) == 0 ? Outcome::Hit : Outcome::Miss;
      if (r.outcome == Outcome::Miss) ++stats_.sector_misses;
    } else {
      l = victim(line_no);
      if (!l) {
        r.outcome = Outcome::MshrFull;
        return count(r, kind);
      }
      evict(*l, r);
      l->line_no = line_no;
      setKey(*l, line_no + 1);
      r.outcome = Outcome::Miss;
    }
    l->valid |= static_cast<uint8_t>(m & ~l->reserved);  // a reserved sector becomes valid at its fill
    l->dirty |= m;
    touch(*l, now);
    return count(r, kind);
  }

  // Load.
  if (l) {
    const uint8_t missing = m & ~l->valid & ~l->reserved;
    const uint8_t pending = m & l->reserved;
    if (missing == 0 && pending == 0) {
      r.outcome = Outcome::Hit;
      touch(*l, now);
      return count(r, kind);
    }
    // Merging needs a slot in the line's entry; a sector miss with no entry
    // needs a free one.
    const bool has_entry = l->mshr >= 0;
    if (has_entry ? mshr_[l->mshr].nwait >= p_.mshr_max_merge : free_mshr_.empty()) {
      r.outcome = Outcome::MshrFull;
      return count(r, kind);
    }
    if (!has_entry) {
      l->mshr = static_cast<int32_t>(free_mshr_.back());
      free_mshr_.pop_back();
      mshr_[l->mshr] = Mshr{static_cast<uint32_t>(l - lines_.data()), 0};
    }
    Mshr& e = mshr_[l->mshr];
    waiters_[static_cast<size_t>(l->mshr) * p_.mshr_max_merge + e.nwait++] =
        Waiter{tag, static_cast<uint8_t>(missing | pending)};
    l->reserved |= missing;
    if (missing == 0) {
      r.outcome = Outcome::HitReserved;
    } else {
      r.outcome = Outcome::Miss;
      r.fetch_mask = missing;
      ++stats_.sector_misses;
    }
    touch(*l, now);
    return count(r, kind);
  }

  // Line miss: needs an MSHR and a way; check both before changing anything.
  Line* v = free_mshr_.empty() ? nullptr : victim(line_no);
  if (!v) {
    r.outcome = Outcome::MshrFull;
    return count(r, kind);
  }
  evict(*v, r);
  v->line_no = line_no;
  setKey(*v, line_no + 1);
  v->reserved = m;
  v->mshr = static_cast<int32_t>(free_mshr_.back());
  free_mshr_.pop_back();
  mshr_[v->mshr] = Mshr{static_cast<uint32_t>(v - lines_.data()), 1};
  waiters_[static_cast<size_t>(v->mshr) * p_.mshr_max_merge] = Waiter{tag, m};
  touch(*v, now);
  r.outcome = Outcome::Miss;
  r.fetch_mask = m;
  return count(r, kind);
}

const std::vector<uint64_t>& SectorCache::fill(uint64_t line_addr, uint8_t m, uint64_t /*now*/) {
  // `now` is not needed: recency counts from the access that allocated the
  // line (GPGPU-Sim's ON_MISS allocation sets the access time at the miss).
  checkMask(m, "fill");
  done_.clear();
  Line* l = find(line_addr >> line_shift_);
  if (!l || (m & ~l->reserved) != 0)
    throw Error(p_.name + ": fill of line " + hex(line_addr) + " sectors " + hex(m) +
                " that no miss is waiting for");
  ++stats_.fills;
  l->valid |= m;
  l->reserved &= static_cast<uint8_t>(~m);
  Mshr& e = mshr_[l->mshr];
  Waiter* w = &waiters_[static_cast<size_t>(l->mshr) * p_.mshr_max_merge];
  uint32_t kept = 0;
  for (uint32_t i = 0; i < e.nwait; ++i) {  // in arrival order; the rest keep theirs
    if ((w[i].needs & l->reserved) == 0)
      done_.push_back(w[i].tag);
    else
      w[kept++] = w[i];
  }
  e.nwait = kept;
  if (l->reserved == 0) {
    // Every waiter's sectors were reserved ones, so none is left.
    free_mshr_.push_back(static_cast<uint32_t>(l->mshr));
    l->mshr = -1;
  }
  return done_;
}

uint8_t SectorCache::validSectors(uint64_t line_addr) const {
  const Line* l = find(line_addr >> line_shift_);
  return l ? l->valid : 0;
}

uint8_t SectorCache::dirtySectors(uint64_t line_addr) const {
  const Line* l = find(line_addr >> line_shift_);
  return l ? l->dirty : 0;
}

uint8_t SectorCache::pendingSectors(uint64_t line_addr) const {
  const Line* l = find(line_addr >> line_shift_);
  return l ? l->reserved : 0;
}

}  // namespace rfsim::mem
