// ld/st/atom/red/cvta: address translation through the state spaces and the
// generic windows (memory.h), with bounds and alignment checks.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <fmt/format.h>

#include "common/error.h"
#include "func/all_lanes.h"
#include "func/executor.h"
#include "func/semantics/semantics.h"
#include "func/stepper.h"

namespace rfsim::func {

using ptx::Space;

namespace {

// Fixed-size copies: a memcpy of a run-time size goes byte by byte through
// the stack and stalls store forwarding on every lane.
inline uint64_t loadN(const uint8_t* p, unsigned n) {
  switch (n) {
    case 1: return *p;
    case 2: { uint16_t v; std::memcpy(&v, p, 2); return v; }
    case 4: { uint32_t v; std::memcpy(&v, p, 4); return v; }
    default: { uint64_t v; std::memcpy(&v, p, 8); return v; }
  }
}

inline void storeN(uint8_t* p, uint64_t v, unsigned n) {
  switch (n) {
    case 1: *p = static_cast<uint8_t>(v); break;
    case 2: { const uint16_t x = static_cast<uint16_t>(v); std::memcpy(p, &x, 2); break; }
    case 4: { const uint32_t x = static_cast<uint32_t>(v); std::memcpy(p, &x, 4); break; }
    default: std::memcpy(p, &v, 8); break;
  }
}

// One element of EB bytes; Relaxed: while blocks run on several threads
// (loadRelaxed, memory.h).
template <unsigned EB, bool Relaxed>
inline uint64_t loadE(const uint8_t* p) {
  if constexpr (Relaxed) return loadRelaxed(p, EB);
  else return loadN(p, EB);
}

template <unsigned EB, bool Relaxed>
inline void storeE(uint8_t* p, uint64_t v) {
  if constexpr (Relaxed) storeRelaxed(p, v, EB);
  else storeN(p, v, EB);
}

// ld's lanes once each is known to be inside one span at base + off[l]:
// element j of lane l into col[j][l] (a null column: a sink).
template <unsigned EB, bool Relaxed>
void gatherLanes(const uint8_t* base, const uint64_t* off, uint32_t act, unsigned n, bool sign, uint64_t* const* col,
                 const uint64_t* msk, uint64_t width) {
  constexpr unsigned shift = 64 - 8 * EB;
  const uint64_t step = uint64_t{n} * EB;
  if (width == 0 || width == 31 * step) {
    // A full warp whose lanes all read one address (a broadcast), or each
    // the element after the previous lane's (a coalesced row): one load
    // filled into every lane, or a widening copy the compiler vectorises.
    const uint64_t o0 = off[0];
    uint64_t astray = 0;
    if (width) allLanes([&](uint32_t l) { astray |= off[l] ^ (o0 + l * step); });
    if (!astray) {
      for (unsigned j = 0; j < n; ++j) {
        uint64_t* out = col[j];
        if (!out) continue;
        const uint64_t mk = msk[j];
        const uint8_t* b = base + o0 + j * EB;
        if (!width) {
          uint64_t v = loadE<EB, Relaxed>(b);
          if (EB < 8 && sign) v = static_cast<uint64_t>(static_cast<int64_t>(v << shift) >> shift);
          v &= mk;
          allLanes([&](uint32_t l) { out[l] = v; });
        } else if (EB < 8 && sign) {
          allLanes([&](uint32_t l) {
            out[l] = static_cast<uint64_t>(static_cast<int64_t>(loadE<EB, Relaxed>(b + l * step) << shift) >> shift) & mk;
          });
        } else {
          allLanes([&](uint32_t l) { out[l] = loadE<EB, Relaxed>(b + l * step) & mk; });
        }
      }
      return;
    }
  }
  for (unsigned j = 0; j < n; ++j) {
    uint64_t* out = col[j];
    if (!out) continue;
    const uint64_t mk = msk[j];
    const uint8_t* b = base + j * EB;
    auto one = [&](uint32_t l) {
      uint64_t v = loadE<EB, Relaxed>(b + off[l]);
      if (EB < 8 && sign) v = static_cast<uint64_t>(static_cast<int64_t>(v << shift) >> shift);
      out[l] = v & mk;
    };
    if (act == ~0u) {
      for (uint32_t l = 0; l < 32; ++l) one(l);
    } else {
      for (uint32_t m = act; m; m &= m - 1) one(static_cast<uint32_t>(__builtin_ctz(m)));
    }
  }
}

// st's lanes likewise: the value (vp[l * stride] + add) ^ x of each lane,
// in lane order.
template <unsigned EB, bool Relaxed>
void scatterLanes(uint8_t* base, const uint64_t* off, uint32_t act, const uint64_t* vp, uint32_t stride, uint64_t add,
                  uint64_t x, uint64_t width) {
  if (act == ~0u) {
    // Each lane the element after the previous lane's (a coalesced row): a
    // narrowing copy the compiler vectorises.
    const uint64_t o0 = off[0];
    uint64_t astray = 1;
    if (width == 31 * EB && stride) {
      astray = 0;
      allLanes([&](uint32_t l) { astray |= off[l] ^ (o0 + l * EB); });
    }
    uint8_t* b = base + o0;
    if (!astray)
      allLanes([&](uint32_t l) { storeE<EB, Relaxed>(b + l * EB, (vp[l] + add) ^ x); });
    else
      for (uint32_t l = 0; l < 32; ++l) storeE<EB, Relaxed>(base + off[l], (vp[l * stride] + add) ^ x);
    return;
  }
  for (uint32_t m = act; m; m &= m - 1) {
    const uint32_t l = static_cast<uint32_t>(__builtin_ctz(m));
    storeE<EB, Relaxed>(base + off[l], (vp[l * stride] + add) ^ x);
  }
}

// The addresses p[l] + add of all 32 lanes into addrs, with their lowest,
// highest and bitwise OR (for the alignment check).
struct LaneSpan {
  uint64_t lo, hi, any;
};

LaneSpan laneSpan(const uint64_t* p, uint64_t add, uint64_t* addrs) {
  uint64_t lo = ~0ull, hi = 0, any = 0;
  for (uint32_t l = 0; l < 32; ++l) {
    const uint64_t x = p[l] + add;
    addrs[l] = x;
    lo = x < lo ? x : lo;
    hi = x > hi ? x : hi;
    any |= x;
  }
  return {lo, hi, any};
}

#if defined(__x86_64__)
// The same four lanes at a time: unsigned comparisons as signed ones of the
// values with their top bit flipped.
[[gnu::target("avx2")]] LaneSpan laneSpanAvx2(const uint64_t* p, uint64_t add, uint64_t* addrs) {
  const __m256i a = _mm256_set1_epi64x(static_cast<int64_t>(add));
  const __m256i bias = _mm256_set1_epi64x(INT64_MIN);
  __m256i lo = _mm256_set1_epi64x(INT64_MAX), hi = bias, any = _mm256_setzero_si256();
  for (uint32_t l = 0; l < 32; l += 4) {
    const __m256i x = _mm256_add_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + l)), a);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(addrs + l), x);
    any = _mm256_or_si256(any, x);
    const __m256i xb = _mm256_xor_si256(x, bias);
    lo = _mm256_blendv_epi8(lo, xb, _mm256_cmpgt_epi64(lo, xb));
    hi = _mm256_blendv_epi8(hi, xb, _mm256_cmpgt_epi64(xb, hi));
  }
  alignas(32) uint64_t l4[4], h4[4], o4[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(l4), lo);
  _mm256_store_si256(reinterpret_cast<__m256i*>(h4), hi);
  _mm256_store_si256(reinterpret_cast<__m256i*>(o4), any);
  LaneSpan s{~0ull, 0, 0};
  for (unsigned k = 0; k < 4; ++k) {
    const uint64_t lk = l4[k] ^ static_cast<uint64_t>(INT64_MIN), hk = h4[k] ^ static_cast<uint64_t>(INT64_MIN);
    s.lo = lk < s.lo ? lk : s.lo;
    s.hi = hk > s.hi ? hk : s.hi;
    s.any |= o4[k];
  }
  return s;
}
#endif

LaneSpan fullWarpSpan(const uint64_t* p, uint64_t add, uint64_t* addrs) {
#if defined(__x86_64__)
  if (kHostAvx2) return laneSpanAvx2(p, add, addrs);
#endif
  return laneSpan(p, add, addrs);
}

}  // namespace

uint8_t* BlockExecutor::resolveSlow(Warp& w, const DInstr& d, Space space, uint64_t addr, uint32_t bytes,
                                    uint32_t lane, bool write, bool atomic) {
  if (addr & (bytes - 1))
    fail(w, d, lane, fmt::format("{} misaligned address {} for a {}-byte access", mnemonic(*d.in), hex(addr), bytes));
  enum { G, S, L, P } where = G;
  uint64_t off = addr;
  switch (space) {
    case Space::Global: case Space::Const: break;
    case Space::Shared:
      // Shared addresses are 32 bits on the hardware: a base register that
      // went below 0 plus an offset that brings it back wraps around (nvcc
      // -O2 writes `ld.shared.u32 %r, [%r4+68]` with %r4 = base - 64).
      where = S;
      off = addr & 0xffff'ffffull;
      break;
    case Space::Local: where = L; break;
    case Space::Param:
      if (addr >= kFrameParamBase) {
        where = L;
        off = addr - kFrameParamBase;
      } else {
        where = P;
      }
      break;
    default:  // generic
      if (inWindow(addr, kSharedWindow)) {
        where = S;
        off = addr - kSharedWindow;
      } else if (inWindow(addr, kLocalWindow)) {
        where = L;
        off = addr - kLocalWindow;
      } else if (inWindow(addr, kParamWindow)) {
        where = P;
        off = addr - kParamWindow;
      }
      break;
  }
  switch (where) {
    case G: {
      uint8_t* p = mem_.translate(addr, bytes, tc_);
      if (!p)
        fail(w, d, lane, fmt::format("{} out of bounds at {}{}", mnemonic(*d.in), hex(addr), mem_.describe(addr)));
      if (write && tc_.lastKind() == AllocKind::Const)
        fail(w, d, lane, fmt::format("{} writes constant memory at {}{}", mnemonic(*d.in), hex(addr),
                                     mem_.describe(addr)));
      if (space == Space::Const && tc_.lastKind() != AllocKind::Const)
        fail(w, d, lane, fmt::format("{} at {} which is not constant memory{}", mnemonic(*d.in), hex(addr),
                                     mem_.describe(addr)));
      return p;
    }
    case S:
      if (off > shared_.size() || bytes > shared_.size() - off)
        fail(w, d, lane, fmt::format("{} out of bounds at shared address {} (shared memory of {} bytes: {} static, "
                                     "{} dynamic)", mnemonic(*d.in), hex(off), shared_.size(),
                                     setup_.static_shared, setup_.dynamic_shared));
      return shared_.data() + off;
    case L: {
      const uint32_t top = w.frames.back().stack_top;
      if (atomic) fail(w, d, lane, fmt::format("{} on local memory at {}", mnemonic(*d.in), hex(addr)));
      if (machine_) {
        // The stack: [local_lo, top) is mapped; below it grows on demand.
        if (off >= top || bytes > top - off)
          fail(w, d, lane, fmt::format("{} out of bounds at local address {} (the thread's stack lies below {})",
                                       mnemonic(*d.in), hex(off), hex(top)));
        if (off < w.local_lo) w.growStackDown(static_cast<uint32_t>(off), top);
        return w.lanes(lane) + (off - w.local_lo);
      }
      if (off > top || bytes > top - off)
        fail(w, d, lane, fmt::format("{} out of bounds at local address {} (the thread's stack holds {} bytes)",
                                     mnemonic(*d.in), hex(off), top));
      return w.lanes(lane) + off;
    }
    case P: {
      if (write || atomic)
        fail(w, d, lane, fmt::format("{} writes kernel parameter memory at {}", mnemonic(*d.in), hex(addr)));
      const auto& pb = setup_.params;
      if (off > pb.size() || bytes > pb.size() - off)
        fail(w, d, lane, fmt::format("{} out of bounds at parameter address {} (parameters of {} bytes)",
                                     mnemonic(*d.in), hex(off), pb.size()));
      return const_cast<uint8_t*>(pb.data()) + off;
    }
  }
  return nullptr;
}

uint8_t* BlockExecutor::spanBase(Warp& w, Space space, const uint64_t* p, uint64_t add, uint32_t act, uint32_t bytes,
                                 uint64_t* addrs, uint64_t& width) {
  uint64_t lo = ~0ull, hi = 0, any = 0;
  width = ~0ull;
  if (act == ~0u) {
    const LaneSpan s = fullWarpSpan(p, add, addrs);
    lo = s.lo, hi = s.hi, any = s.any;
  } else {
    for (uint32_t l = 0; l < 32; ++l) addrs[l] = p[l] + add;
    for (uint32_t m = act; m; m &= m - 1) {
      const uint64_t x = addrs[__builtin_ctz(m)];
      lo = x < lo ? x : lo;
      hi = x > hi ? x : hi;
      any |= x;
    }
  }
  if (any & (bytes - 1)) return nullptr;  // some lane misaligned: the lane-by-lane path names it
  switch (space) {
    case Space::Global: case Space::Generic: {
      if (space == Space::Generic && hi >= kCodeWindow) return nullptr;
      // One allocation holds [lo, hi + bytes), so it holds every lane's access.
      uint8_t* q = mem_.translate(lo, hi - lo + bytes, tc_);
      if (!q || tc_.lastKind() == AllocKind::Const) return nullptr;
      allLanes([&](uint32_t l) { addrs[l] -= lo; });
      if (act == ~0u) width = hi - lo;
      return q;
    }
    case Space::Shared:
      if (hi > shared_.size() || bytes > shared_.size() - hi) return nullptr;
      if (act == ~0u) width = hi - lo;
      return shared_.data();
    case Space::Local: {
      // [local_lo, stack_top) is mapped, lane l's at lanes(l).
      const uint64_t span = w.frames.back().stack_top - w.local_lo;
      if (lo < w.local_lo || hi - w.local_lo > span || bytes > span - (hi - w.local_lo)) return nullptr;
      for (uint32_t l = 0; l < 32; ++l) addrs[l] += uint64_t{l} * w.local_cap - w.local_lo;
      return w.localData();
    }
    default:
      return nullptr;
  }
}

BlockExecutor::Column BlockExecutor::address(Warp& w, const DInstr& d, std::array<uint64_t, 32>& tmp) {
  const Column a = column(w, d.src[0], tmp);
  if (!d.addend) return a;
  std::array<uint64_t, 32> tu, sum;
  const Column u = column(w, d.src[d.addend], tu);
  const uint64_t mask = d.addend_bits == 32 ? 0xffffffffull : ~0ull;
  const uint64_t add = a.add + u.add;
  uint64_t* t = sum.data();
  if (a.stride && u.stride)
    allLanes([&](uint32_t l) { t[l] = (a.p[l] + u.p[l] + add) & mask; });
  else
    for (uint32_t l = 0; l < 32; ++l) t[l] = (a.p[l * a.stride] + u.p[l * u.stride] + add) & mask;
  tmp = sum;
  return {tmp.data(), 1, 0, 0};
}

void BlockExecutor::execLd(Warp& w, const DInstr& d, uint32_t act) {
  const ptx::Instr& in = *d.in;
  const unsigned n = in.mods.vec, eb = d.bytes;
  const unsigned total = n * eb;
  const unsigned shift = 64 - 8 * eb;
  const bool sign = ptx::isSigned(in.type) && eb < 8;
  std::array<uint64_t, 32> tmp;
  const Column a = address(w, d, tmp);
  const DOperand& dst = d.dst[0];
  uint64_t* col[4] = {nullptr, nullptr, nullptr, nullptr};
  uint64_t msk[4] = {0, 0, 0, 0};
  // Machine pairs: loaded whole into wide[j], split into the pair after the
  // lane loop (which stays the same for every kind of destination).
  std::array<std::array<uint64_t, 32>, 4> wide;
  uint32_t pairs[4] = {ptx::kNoReg, ptx::kNoReg, ptx::kNoReg, ptx::kNoReg};
  bool any_pair = false;
  if (dst.kind == DKind::Reg) {
    col[0] = w.reg(dst.reg);
    msk[0] = dst.mask;
  } else if (dst.kind == DKind::Vec) {
    for (unsigned j = 0; j < n && j < dst.vec_n; ++j)
      if (dst.regs[j] != ptx::kNoReg) {
        col[j] = w.reg(dst.regs[j]);
        msk[j] = dst.masks[j];
        if (dst.pair) {
          col[j] = wide[j].data();
          msk[j] = ~0ull;
          pairs[j] = dst.regs[j];
          any_pair = true;
        }
      }
  } else if (dst.kind == DKind::RegPair) {
    col[0] = wide[0].data();
    msk[0] = ~0ull;
    pairs[0] = dst.reg;
    any_pair = true;
  }
  uint64_t addrs[32];
  uint64_t width = ~0ull;
  uint8_t* base = nullptr;
  if (a.stride) base = spanBase(w, in.space, a.p, a.add, act, total, addrs, width);
  if (log_) [[unlikely]] base = logLoad(in.space, a, act, total, base);
  if (base) {
    // Every lane inside one allocation (or the shared memory), aligned.
    const auto gather = [&](auto relaxed) {
      constexpr bool R = decltype(relaxed)::value;
      switch (eb) {
        case 1: gatherLanes<1, R>(base, addrs, act, n, sign, col, msk, width); break;
        case 2: gatherLanes<2, R>(base, addrs, act, n, sign, col, msk, width); break;
        case 4: gatherLanes<4, R>(base, addrs, act, n, sign, col, msk, width); break;
        default: gatherLanes<8, R>(base, addrs, act, n, sign, col, msk, width); break;
      }
    };
    if (log_) [[unlikely]] gather(std::true_type{});
    else gather(std::false_type{});
  } else {
    for (uint32_t m = act; m; m &= m - 1) {
      const uint32_t l = static_cast<uint32_t>(__builtin_ctz(m));
      const uint64_t addr = a.p[l * a.stride] + a.add;
      const uint8_t* p = resolve(w, d, in.space, addr, total, l, false, false);
      uint8_t seen[32];
      if (log_) [[unlikely]] p = logLoadLane(in.space, addr, p, total, seen);
      for (unsigned j = 0; j < n; ++j) {
        uint64_t v = log_ ? loadRelaxed(p + j * eb, eb) : loadN(p + j * eb, eb);
        if (sign) v = static_cast<uint64_t>(static_cast<int64_t>(v << shift) >> shift);
        if (col[j]) col[j][l] = v & msk[j];
      }
    }
  }
  if (any_pair) {
    for (unsigned j = 0; j < 4; ++j) {
      if (pairs[j] == ptx::kNoReg) continue;
      DOperand p;
      p.kind = DKind::RegPair;
      p.reg = pairs[j];
      writePair(w, p, wide[j].data(), act);
    }
  }
}

void BlockExecutor::execSt(Warp& w, const DInstr& d, uint32_t act) {
  const ptx::Instr& in = *d.in;
  const unsigned n = in.mods.vec, eb = d.bytes;
  std::array<uint64_t, 32> ta, tv;
  const Column a = address(w, d, ta);
  const DOperand& src = d.src[1];
  const uint64_t* col[4] = {nullptr, nullptr, nullptr, nullptr};
  Column v{};
  uint64_t imm[4] = {0, 0, 0, 0};
  std::array<std::array<uint64_t, 32>, 4> pairs;  // machine pairs, joined
  if (src.kind == DKind::Vec) {
    for (unsigned j = 0; j < n && j < src.vec_n; ++j) {
      if (src.regs[j] != ptx::kNoReg) col[j] = w.reg(src.regs[j]);
      else if (j * eb * 8 < 64) imm[j] = src.value >> (j * eb * 8);
      else if (j * eb * 8 < 128) imm[j] = src.value_hi >> (j * eb * 8 - 64);
      if (src.pair && col[j]) {
        const uint64_t* hi = w.reg(src.regs[j] + 1);  // its own row: a pair's rows need not be adjacent
        uint64_t* t = pairs[j].data();
        const uint64_t* c = col[j];
        allLanes([&](uint32_t l) { t[l] = c[l] | hi[l] << 32; });
        col[j] = pairs[j].data();
      }
    }
  } else {
    v = column(w, src, tv);
  }
  uint64_t addrs[32];
  uint64_t width = ~0ull;
  uint8_t* base = a.stride ? spanBase(w, in.space, a.p, a.add, act, n * eb, addrs, width) : nullptr;
  if (log_) [[unlikely]] base = logStore(in.space, a, act, n * eb, base);
  if (base && src.kind != DKind::Vec) {
    // Every lane inside one allocation (or the shared memory), aligned; in
    // lane order, so that the last of the lanes storing to one address wins.
    const auto scatter = [&](auto relaxed) {
      constexpr bool R = decltype(relaxed)::value;
      switch (eb) {
        case 1: scatterLanes<1, R>(base, addrs, act, v.p, v.stride, v.add, v.x, width); break;
        case 2: scatterLanes<2, R>(base, addrs, act, v.p, v.stride, v.add, v.x, width); break;
        case 4: scatterLanes<4, R>(base, addrs, act, v.p, v.stride, v.add, v.x, width); break;
        default: scatterLanes<8, R>(base, addrs, act, v.p, v.stride, v.add, v.x, width); break;
      }
    };
    if (log_) [[unlikely]] scatter(std::true_type{});
    else scatter(std::false_type{});
    return;
  }
  for (uint32_t m = act; m; m &= m - 1) {
    const uint32_t l = static_cast<uint32_t>(__builtin_ctz(m));
    const uint64_t addr = a.p[l * a.stride] + a.add;
    uint8_t* p = base ? base + addrs[l] : resolve(w, d, in.space, addr, n * eb, l, true, false);
    if (log_) [[unlikely]] p = logStoreLane(in.space, addr, p, n * eb, l);
    const auto store = [&](uint8_t* q, uint64_t x, unsigned b) {
      if (log_) [[unlikely]] storeRelaxed(q, x, b);
      else storeN(q, x, b);
    };
    if (src.kind == DKind::Vec) {
      for (unsigned j = 0; j < n; ++j) {
        store(p + j * eb, col[j] ? col[j][l] : imm[j], eb);
      }
    } else {
      store(p, (v.p[l * v.stride] + v.add) ^ v.x, eb);
    }
  }
  if (log_) [[unlikely]] logStoreDone();
}

// Lane by lane in lane order: every lane sees the result of the lanes before
// it (the order is one the hardware may produce).
void BlockExecutor::execAtom(Warp& w, const DInstr& d, uint32_t act) {
  const ptx::Instr& in = *d.in;
  const unsigned eb = d.bytes;
  const uint64_t wm = eb == 8 ? ~0ull : 0xffffffffull;
  for (uint32_t m = act; m; m &= m - 1) {
    const uint32_t l = static_cast<uint32_t>(__builtin_ctz(m));
    const uint64_t addr = read(w, d.src[0], l);
    uint8_t* p = resolve(w, d, in.space, addr, eb, l, true, true);
    const uint64_t b = read(w, d.src[1], l) & wm;
    const uint64_t c = d.nsrc > 2 ? read(w, d.src[2], l) & wm : 0;
    if (log_) [[unlikely]]
      if (logAtomic(d, in.space, addr, b, c)) continue;
    // One thread's read-modify-write: no other block touches the word at
    // once (parallel blocks log their atomics), only the relaxed access.
    const uint64_t old = log_ ? loadRelaxed(p, eb) : loadN(p, eb);
    const uint64_t res = atomicResult(in.mods.atom, in.type, old, b, c) & wm;
    if (log_) [[unlikely]] storeRelaxed(p, res, eb);
    else storeN(p, res, eb);
    if (d.cls == Cls::Atom && d.dst[0].kind != DKind::None) write(w, d.dst[0], l, old);
  }
}

void BlockExecutor::execCvta(Warp& w, const DInstr& d, uint32_t act) {
  const ptx::Instr& in = *d.in;
  uint64_t window = 0;
  switch (in.space) {
    case Space::Shared: window = kSharedWindow; break;
    case Space::Local: window = kLocalWindow; break;
    case Space::Param: window = kParamWindow; break;
    default: break;  // global and const addresses are generic already
  }
  const uint64_t tm = ptx::typeBits(in.type) == 32 ? 0xffffffffull : ~0ull;
  for (uint32_t m = act; m; m &= m - 1) {
    const uint32_t l = static_cast<uint32_t>(__builtin_ctz(m));
    uint64_t a = read(w, d.src[0], l);
    if (in.space == Space::Param && !in.mods.to && a >= kFrameParamBase)
      fail(w, d, l, "cvta.param of a .func parameter is not supported");
    a = in.mods.to ? a - window : a + window;
    write(w, d.dst[0], l, a & tm);
  }
}

// The same address arithmetic as execLd/execSt/execAtom, without the access.
void BlockExecutor::tellSink(const Warp& w, const DInstr& d, uint32_t act) {
  MemAccess m;
  describeAccess(w.id, d, act, m);
  sink_->access(m);
}

void BlockExecutor::describeAccess(uint32_t warp, const DInstr& d, uint32_t act, MemAccess& out) {
  Warp& w = warps_[warp];
  const ptx::Instr& in = *d.in;
  out.write = d.cls == Cls::St || d.cls == Cls::Atom || d.cls == Cls::Red;
  out.atomic = d.cls == Cls::Atom || d.cls == Cls::Red;
  out.bytes = d.bytes;
  out.elems = static_cast<uint8_t>(d.cls == Cls::Ld || d.cls == Cls::St ? std::max<unsigned>(1, in.mods.vec) : 1);
  out.mask = act;
  std::array<uint64_t, 32> tmp;
  const Column a = address(w, d, tmp);
  if (in.space != Space::Generic && in.space != Space::None && in.space != Space::Param) {
    // A state space named in the instruction: every lane's address is its
    // offset there (the loop below, without its per-lane window tests).
    out.space = in.space;
    if (act == ~0u && a.stride == 1) {
      for (uint32_t l = 0; l < 32; ++l) out.addr[l] = a.p[l] + a.add;
    } else {
      for (uint32_t m = act; m; m &= m - 1) {
        const uint32_t l = static_cast<uint32_t>(__builtin_ctz(m));
        out.addr[l] = a.p[l * a.stride] + a.add;
      }
    }
    return;
  }
  bool first = true, mixed = false;
  Space space = in.space;
  for (uint32_t m = act; m; m &= m - 1) {
    const uint32_t l = static_cast<uint32_t>(__builtin_ctz(m));
    const uint64_t addr = a.p[l * a.stride] + a.add;
    Space s = in.space;
    uint64_t off = addr;
    if (s == Space::Param && addr >= kFrameParamBase) {
      s = Space::Local;  // a .func parameter lives on the stack
      off = addr - kFrameParamBase;
    } else if (s == Space::Generic || s == Space::None) {
      s = Space::Global;
      if (inWindow(addr, kSharedWindow)) {
        s = Space::Shared;
        off = addr - kSharedWindow;
      } else if (inWindow(addr, kLocalWindow)) {
        s = Space::Local;
        off = addr - kLocalWindow;
      } else if (inWindow(addr, kParamWindow)) {
        s = Space::Param;
        off = addr - kParamWindow;
      }
    }
    if (first) space = s;
    mixed = mixed || s != space;
    first = false;
    out.addr[l] = off;
  }
  out.space = space;
  if (mixed) {  // lanes in different windows: report the generic addresses
    out.space = Space::Generic;
    for (uint32_t m = act; m; m &= m - 1) {
      const uint32_t l = static_cast<uint32_t>(__builtin_ctz(m));
      out.addr[l] = a.p[l * a.stride] + a.add;
    }
  }
}

void BlockExecutor::readGeneric(Warp& w, const DInstr& d, uint32_t lane, uint64_t addr, void* out, uint32_t bytes) {
  auto* o = static_cast<uint8_t*>(out);
  for (uint32_t i = 0; i < bytes; ++i) o[i] = *resolve(w, d, Space::Generic, addr + i, 1, lane, false, false);
}

}  // namespace rfsim::func
