// The coalescer of the LD/ST unit: turns one warp memory instruction's
// per-lane addresses into one request per cache line touched, each with the
// 32-byte sectors it touches.
//
// Rule (GPGPU-Sim's sectored coalescing for Volta, shader.cc
// memory_coalescing_arch with sectored L1, and Jia et al. 2018, "Dissecting
// the NVIDIA Volta GPU Architecture via Microbenchmarking", sections 3.3-3.4:
// 128-byte L1/L2 lines of four 32-byte sectors): the active lanes are grouped
// by line; every sector a lane's bytes fall in is set in that line's mask. A
// lane's element is bytes x elems bytes (a vector access is contiguous), and
// it may straddle sectors or lines: every one it touches counts. Requests come
// in the order of the first lane that touches their line (for a lane that
// straddles two lines, the lower one first), so the result is deterministic.
//
// Spaces: Global, Local, Const, Param and Generic are coalesced as given
// (Local addresses are each lane's own local address; the caller interleaves
// them into the local window afterwards). Shared memory never leaves the SM
// and goes through the bank-conflict model (sm/issue/shared_banks.h), so a
// Shared access yields no request.
//
// Allocation-free: the result is a fixed-capacity list the caller reuses.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "ptx/ir.h"

namespace rfsim::func {
struct MemAccess;
}

namespace rfsim::mem {

// What a request is, so statistics can split global from local (spill)
// traffic. Atomics (atom, red) to any space are Atomic; Const, Param and a
// Generic access that mixes windows are Other.
enum class AccessKind : uint8_t { GlobalLoad, GlobalStore, LocalLoad, LocalStore, Atomic, Other };
constexpr size_t kNumAccessKinds = 6;
const char* accessKindName(AccessKind k);  // "global_load", ...
AccessKind accessKindOf(ptx::Space space, bool write, bool atomic);

struct CoalescerParams {
  uint32_t line_bytes = 128;   // Volta L1D/L2 line (Jia et al. 2018)
  uint32_t sector_bytes = 32;  // Volta sector (ibid.)
};

// One line's worth of a warp access.
struct LineRequest {
  uint64_t line_addr = 0;   // byte address of the line (aligned to line_bytes)
  uint8_t sector_mask = 0;  // bit i: sector i of the line is touched
  // Bytes the lanes asked for in this line, summed over lanes (two lanes
  // reading the same word count twice, as nvprof's "requested" bytes). The
  // bytes moved are popcount(sector_mask) x sector_bytes.
  uint32_t bytes = 0;
  uint32_t lanes = 0;  // lanes that touch the line
  bool write = false, atomic = false;
  AccessKind kind = AccessKind::Other;
};

// The requests of one warp access. Capacity: 32 lanes, each touching at most
// two lines (an element is never longer than a line; the coalescer checks).
class RequestList {
 public:
  static constexpr size_t kCapacity = 64;
  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  const LineRequest& operator[](size_t i) const { return r_[i]; }
  const LineRequest* begin() const { return r_.data(); }
  const LineRequest* end() const { return r_.data() + n_; }
  void clear() { n_ = 0; }

 private:
  friend class Coalescer;
  std::array<LineRequest, kCapacity> r_{};
  size_t n_ = 0;
};

class Coalescer {
 public:
  // Throws rfsim::Error naming the parameter when line_bytes or sector_bytes
  // is not a power of two, the sector does not divide the line, or the line
  // has more than 8 sectors (the mask is 8 bits).
  explicit Coalescer(const CoalescerParams& p = {});

  const CoalescerParams& params() const { return p_; }
  uint32_t sectorsPerLine() const { return p_.line_bytes / p_.sector_bytes; }

  // Replaces `out` with the requests of `a` (none for Shared, or when no lane
  // is active). Throws rfsim::Error for an access with active lanes but no
  // memory space (None, Reg), an element size other than 1, 2, 4, 8 or 16
  // bytes, a vector count other than 1, 2 or 4, or an element longer than a
  // line.
  void coalesce(const func::MemAccess& a, RequestList& out) const;

 private:
  CoalescerParams p_;
  uint32_t sector_shift_ = 0;
};

}  // namespace rfsim::mem
