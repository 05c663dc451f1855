#include "mem/coalescer.h"

#include <algorithm>
#include <string>

#include "common/error.h"
#include "func/stepper.h"

namespace rfsim::mem {

namespace {

bool isPow2(uint64_t x) { return x != 0 && (x & (x - 1)) == 0; }

uint32_t log2u(uint64_t x) {
  uint32_t s = 0;
  while ((uint64_t{1} << s) < x) ++s;
  return s;
}

// Bits lo..hi (inclusive) set.
uint8_t bitRange(uint32_t lo, uint32_t hi) {
  return static_cast<uint8_t>(((1u << (hi + 1)) - 1u) & ~((1u << lo) - 1u));
}

}  // namespace

const char* accessKindName(AccessKind k) {
  switch (k) {
    case AccessKind::GlobalLoad: return "global_load";
    case AccessKind::GlobalStore: return "global_store";
    case AccessKind::LocalLoad: return "local_load";
    case AccessKind::LocalStore: return "local_store";
    case AccessKind::Atomic: return "atomic";
    case AccessKind::Other: return "other";
  }
  return "?";
}

AccessKind accessKindOf(ptx::Space space, bool write, bool atomic) {
  if (atomic) return AccessKind::Atomic;
  switch (space) {
    case ptx::Space::Global: return write ? AccessKind::GlobalStore : AccessKind::GlobalLoad;
    case ptx::Space::Local: return write ? AccessKind::LocalStore : AccessKind::LocalLoad;
    default: return AccessKind::Other;
  }
}

Coalescer::Coalescer(const CoalescerParams& p) : p_(p) {
  if (!isPow2(p.line_bytes))
    throw Error("coalescer: line_bytes " + std::to_string(p.line_bytes) + " is not a power of two");
  if (!isPow2(p.sector_bytes))
    throw Error("coalescer: sector_bytes " + std::to_string(p.sector_bytes) + " is not a power of two");
  if (p.sector_bytes > p.line_bytes)
    throw Error("coalescer: sector_bytes " + std::to_string(p.sector_bytes) + " does not divide line_bytes " +
                std::to_string(p.line_bytes));
  if (p.line_bytes / p.sector_bytes > 8)
    throw Error("coalescer: line_bytes / sector_bytes = " + std::to_string(p.line_bytes / p.sector_bytes) +
                " sectors per line, more than the 8 a sector mask holds");
  sector_shift_ = log2u(p.sector_bytes);
}

void Coalescer::coalesce(const func::MemAccess& a, RequestList& out) const {
  out.n_ = 0;
  if (a.mask == 0 || a.space == ptx::Space::Shared) return;
  if (a.space == ptx::Space::None || a.space == ptx::Space::Reg)
    throw Error("coalescer: an access with active lanes names no memory space");
  if (a.bytes != 1 && a.bytes != 2 && a.bytes != 4 && a.bytes != 8 && a.bytes != 16)
    throw Error("coalescer: element size " + std::to_string(a.bytes) + " is not 1, 2, 4, 8 or 16 bytes");
  if (a.elems != 1 && a.elems != 2 && a.elems != 4)
    throw Error("coalescer: vector count " + std::to_string(a.elems) + " is not 1, 2 or 4");
  const uint32_t span = uint32_t{a.bytes} * a.elems;
  // Keeps every lane within two lines, so RequestList's capacity holds.
  if (span > p_.line_bytes)
    throw Error("coalescer: a lane's " + std::to_string(span) + " bytes exceed line_bytes " +
                std::to_string(p_.line_bytes));

  const AccessKind kind = accessKindOf(a.space, a.write, a.atomic);
  const uint64_t line_mask = ~uint64_t{p_.line_bytes - 1};
  size_t last = 0;  // the request the previous piece went to: unit-stride lanes mostly repeat it
  for (uint32_t lane = 0; lane < 32; ++lane) {
    if (!(a.mask >> lane & 1u)) continue;
    const uint64_t first = a.addr[lane];
    const uint64_t end = first + span;  // one past the lane's last byte
    for (uint64_t lo = first; lo < end;) {
      const uint64_t line = lo & line_mask;
      const uint64_t hi = std::min<uint64_t>(end, line + p_.line_bytes);  // one past, within this line
      size_t r = last;
      if (r >= out.n_ || out.r_[r].line_addr != line) {
        for (r = 0; r < out.n_ && out.r_[r].line_addr != line; ++r) {
        }
        if (r == out.n_) {
          LineRequest& q = out.r_[out.n_++];
          q = LineRequest{};
          q.line_addr = line;
          q.write = a.write;
          q.atomic = a.atomic;
          q.kind = kind;
        }
      }
      LineRequest& q = out.r_[r];
      q.sector_mask |= bitRange(static_cast<uint32_t>((lo - line) >> sector_shift_),
                                static_cast<uint32_t>((hi - 1 - line) >> sector_shift_));
      q.bytes += static_cast<uint32_t>(hi - lo);
      q.lanes |= 1u << lane;
      last = r;
      lo = hi;
    }
  }
}

}  // namespace rfsim::mem
