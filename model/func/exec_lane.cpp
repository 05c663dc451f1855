// Operand reads and the data-processing instructions: sources as columns of
// 32 lanes, the instruction's warp function over all of them (semantics.h
// warpFunction, chosen at load) or else its lane function per active lane
// (laneFunction), and the results stored to the active lanes.
#include <algorithm>
#include <cstring>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <fmt/format.h>

#include "common/error.h"
#include "func/all_lanes.h"
#include "func/executor.h"
#include "func/semantics/semantics.h"

namespace rfsim::func {

namespace {
alignas(32) const uint64_t kZeroColumn[32] = {};
// kLaneMasks[n][k]: all ones when bit k of the nibble n is set.
struct LaneMasks {
  alignas(32) uint64_t m[16][4];
  constexpr LaneMasks() : m() {
    for (unsigned n = 0; n < 16; ++n)
      for (unsigned k = 0; k < 4; ++k) m[n][k] = (n >> k) & 1 ? ~0ull : 0;
  }
  const uint64_t* operator[](uint32_t n) const { return m[n]; }
};
constexpr LaneMasks kLaneMasks;

// p[l] = r[l] & m for the lanes of act, the others left as they are.
void blendStore(uint64_t* p, const uint64_t* r, uint64_t m, uint32_t act) {
  for (uint32_t g = 0; g < 32; g += 4) {
    const uint64_t* on = kLaneMasks[(act >> g) & 15];
    for (uint32_t k = 0; k < 4; ++k) p[g + k] = (r[g + k] & m & on[k]) | (p[g + k] & ~on[k]);
  }
}

#if defined(__x86_64__)
[[gnu::target("avx2")]] void blendStoreAvx2(uint64_t* p, const uint64_t* r, uint64_t m, uint32_t act) {
  const __m256i mk = _mm256_set1_epi64x(static_cast<int64_t>(m));
  for (uint32_t g = 0; g < 32; g += 4) {
    const __m256i on = _mm256_load_si256(reinterpret_cast<const __m256i*>(kLaneMasks[(act >> g) & 15]));
    const __m256i v = _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(r + g)), mk);
    const __m256i old = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + g));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p + g),
                        _mm256_or_si256(_mm256_and_si256(v, on), _mm256_andnot_si256(on, old)));
  }
}
#endif

void blendLanes(uint64_t* p, const uint64_t* r, uint64_t m, uint32_t act) {
#if defined(__x86_64__)
  if (kHostAvx2) return blendStoreAvx2(p, r, m, act);
#endif
  blendStore(p, r, m, act);
}
}  // namespace

uint64_t BlockExecutor::sreg(const Warp& w, const DOperand& o, uint32_t lane) const {
  using ptx::SReg;
  auto pick = [&](const rt::Dim3& v) -> uint64_t { return o.dim == 0 ? v.x : o.dim == 1 ? v.y : v.z; };
  const uint64_t le = (2ull << lane) - 1, lt = (1ull << lane) - 1;
  switch (o.sreg) {
    case SReg::Tid: return o.dim == 0 ? w.tid_x[lane] : o.dim == 1 ? w.tid_y[lane] : w.tid_z[lane];
    case SReg::Ntid: return pick(setup_.block);
    case SReg::Ctaid: return pick(ctaid_);
    case SReg::Nctaid: return pick(setup_.grid);
    case SReg::Laneid: return lane;
    case SReg::Warpid: return w.id;
    case SReg::Nwarpid: return 64;
    case SReg::Smid: return 0;
    case SReg::Nsmid: return 1;
    case SReg::Gridid: return setup_.grid_id;
    case SReg::Clock: return clock_ & 0xffffffffu;
    case SReg::Clock64: case SReg::GlobalTimer: return clock_;
    case SReg::LanemaskEq: return 1ull << lane;
    case SReg::LanemaskLe: return le & 0xffffffffu;
    case SReg::LanemaskLt: return lt;
    case SReg::LanemaskGe: return ~lt & 0xffffffffu;
    case SReg::LanemaskGt: return ~le & 0xffffffffu;
    case SReg::DynamicSmemSize: return setup_.dynamic_shared;
    case SReg::TotalSmemSize: return shared_.size();
    default: return 0;
  }
}

BlockExecutor::Column BlockExecutor::column(Warp& w, const DOperand& o,
                                            std::array<uint64_t, 32>& tmp) {
  switch (o.kind) {
    case DKind::Reg: return {w.reg(o.reg), 1, o.value, o.negate ? 1ull : 0ull};
    case DKind::Const: return {&o.value, 0, 0, 0};
    case DKind::Local: tmp[0] = o.value + w.frames.back().stack_base; return {tmp.data(), 0, 0, 0};
    case DKind::FrameParam:
      tmp[0] = kFrameParamBase + w.frames.back().stack_base + o.value;
      return {tmp.data(), 0, 0, 0};
    // The columns below are computed for all 32 lanes, a loop the compiler
    // vectorises: an inactive lane's value in `tmp` is never read.
    case DKind::SReg:
      return {sourceColumn(w, o, tmp.data()), 1, 0, 0};
    case DKind::RegPair: {
      // The high half through its own row: with physical rows (a register
      // translator, e.g. a circular register stack) a pair need not be two
      // adjacent rows -- R18 can be the stack's last row and R19 its first.
      const uint64_t* lo = w.reg(o.reg);
      const uint64_t* hi = w.reg(o.reg + 1);
      uint64_t* t = tmp.data();
      allLanes([&](uint32_t l) { t[l] = lo[l] | hi[l] << 32; });
      return {t, 1, o.value, o.negate ? 1ull : 0ull};
    }
    case DKind::RegNarrow: {
      const uint64_t* p = w.reg(o.reg);
      uint64_t* t = tmp.data();
      const uint64_t mk = o.mask;
      allLanes([&](uint32_t l) { t[l] = p[l] & mk; });
      return {t, 1, o.value, o.negate ? 1ull : 0ull};
    }
    case DKind::ParamVal: tmp[0] = param(w, o); return {tmp.data(), 0, 0, 0};
    case DKind::ConstVal: tmp[0] = constVal(w, o); return {tmp.data(), 0, 0, 0};
    default: tmp[0] = 0; return {tmp.data(), 0, 0, 0};
  }
}

uint64_t BlockExecutor::param(const Warp& w, const DOperand& o) const {
  const size_t bytes = o.mask == ~0ull ? 8 : 4;
  if (o.value > setup_.params.size() || bytes > setup_.params.size() - o.value)
    throw Error(fmt::format("warp {}: kernel parameter operand at byte {} past the {} bytes of parameters", w.id,
                            o.value, setup_.params.size()));
  uint64_t v = 0;
  std::memcpy(&v, setup_.params.data() + o.value, bytes);
  return v;
}

uint64_t BlockExecutor::constVal(const Warp& w, const DOperand& o) {
  const size_t bytes = o.mask == ~0ull ? 8 : 4;
  const uint8_t* p = mem_.translate(o.value, bytes, tc_);
  if (!p || tc_.lastKind() != AllocKind::Const)
    throw Error(fmt::format("warp {}: constant-bank operand at {:#x}, which is not constant memory{}", w.id, o.value,
                            mem_.describe(o.value)));
  uint64_t v = 0;
  std::memcpy(&v, p, bytes);
  return v;
}

void BlockExecutor::writePair(Warp& w, const DOperand& o, const uint64_t* v, uint32_t act) {
  uint64_t* lo = w.reg(o.reg);
  uint64_t* hi = w.reg(o.reg + 1);  // its own row (see column())
  if (act == ~0u) {
    allLanes([&](uint32_t l) { lo[l] = v[l] & 0xffffffffu; });
    allLanes([&](uint32_t l) { hi[l] = v[l] >> 32; });
    return;
  }
  for (uint32_t m = act; m; m &= m - 1) {
    const uint32_t l = static_cast<uint32_t>(__builtin_ctz(m));
    lo[l] = v[l] & 0xffffffffu;
    hi[l] = v[l] >> 32;
  }
}

uint64_t BlockExecutor::read(Warp& w, const DOperand& o, uint32_t lane) {
  switch (o.kind) {
    case DKind::Reg: return (w.reg(o.reg)[lane] + o.value) ^ (o.negate ? 1 : 0);
    case DKind::Const: return o.value;
    case DKind::Local: return o.value + w.frames.back().stack_base;
    case DKind::FrameParam: return kFrameParamBase + w.frames.back().stack_base + o.value;
    case DKind::SReg: return sreg(w, o, lane);
    case DKind::RegPair: return ((w.reg(o.reg)[lane] | w.reg(o.reg + 1)[lane] << 32) + o.value) ^ (o.negate ? 1 : 0);
    case DKind::RegNarrow: return ((w.reg(o.reg)[lane] & o.mask) + o.value) ^ (o.negate ? 1 : 0);
    case DKind::ParamVal: return param(w, o);
    case DKind::ConstVal: return constVal(w, o);
    default: return 0;
  }
}

const uint64_t* BlockExecutor::sourceColumn(Warp& w, const DOperand& o, uint64_t* tmp) {
  const uint64_t x = o.negate ? 1 : 0;
  switch (o.kind) {
    case DKind::Reg: {
      const uint64_t* p = w.reg(o.reg);
      if (o.value == 0 && !o.negate) return p;
      const uint64_t add = o.value;
      allLanes([&](uint32_t l) { tmp[l] = (p[l] + add) ^ x; });
      return tmp;
    }
    case DKind::RegPair: {
      // The high half through its own row (see column()).
      const uint64_t* lo = w.reg(o.reg);
      const uint64_t* hi = w.reg(o.reg + 1);
      const uint64_t add = o.value;
      allLanes([&](uint32_t l) { tmp[l] = ((lo[l] | hi[l] << 32) + add) ^ x; });
      return tmp;
    }
    case DKind::RegNarrow: {
      const uint64_t* p = w.reg(o.reg);
      const uint64_t mk = o.mask, add = o.value;
      allLanes([&](uint32_t l) { tmp[l] = ((p[l] & mk) + add) ^ x; });
      return tmp;
    }
    case DKind::SReg:
      switch (o.sreg) {
        case ptx::SReg::Tid: {
          const auto& t = o.dim == 0 ? w.tid_x : o.dim == 1 ? w.tid_y : w.tid_z;
          for (uint32_t l = 0; l < 32; ++l) tmp[l] = t[l];
          return tmp;
        }
        case ptx::SReg::Laneid: case ptx::SReg::LanemaskEq: case ptx::SReg::LanemaskLe:
        case ptx::SReg::LanemaskLt: case ptx::SReg::LanemaskGe: case ptx::SReg::LanemaskGt:
          for (uint32_t l = 0; l < 32; ++l) tmp[l] = sreg(w, o, l);
          return tmp;
        default: {
          const uint64_t v = sreg(w, o, 0);  // the same in every lane
          std::fill_n(tmp, 32, v);
          return tmp;
        }
      }
    default: {
      std::array<uint64_t, 32> one;
      const Column c = column(w, o, one);  // a value shared by all lanes
      std::fill_n(tmp, 32, (c.p[0] + c.add) ^ c.x);
      return tmp;
    }
  }
}

void BlockExecutor::storeColumn(Warp& w, const DOperand& o, const uint64_t* __restrict r, uint32_t act) {
  // A full warp: plain loops. A few lanes: lane by lane. Else without
  // branches: every lane is stored, an inactive one with the value it holds
  // (its lane mask from kLaneMasks, four lanes at a time).
  const bool sparse = act != ~0u && popc32(act) <= 12;
  if (o.kind == DKind::Reg) {
    uint64_t* __restrict p = w.reg(o.reg);
    const uint64_t m = o.mask;
    if (act == ~0u) {
      allLanes([&](uint32_t l) { p[l] = r[l] & m; });
    } else if (sparse) {
      for (uint32_t a = act; a; a &= a - 1) {
        const uint32_t l = static_cast<uint32_t>(__builtin_ctz(a));
        p[l] = r[l] & m;
      }
    } else {
      blendLanes(p, r, m, act);
    }
  } else if (o.kind == DKind::RegPair) {
    uint64_t* __restrict lo = w.reg(o.reg);
    uint64_t* __restrict hi = w.reg(o.reg + 1);  // its own row (see column())
    if (act == ~0u) {
      allLanes([&](uint32_t l) { lo[l] = r[l] & 0xffffffffu; });
      allLanes([&](uint32_t l) { hi[l] = r[l] >> 32; });
    } else if (sparse) {
      for (uint32_t a = act; a; a &= a - 1) {
        const uint32_t l = static_cast<uint32_t>(__builtin_ctz(a));
        lo[l] = r[l] & 0xffffffffu;
        hi[l] = r[l] >> 32;
      }
    } else {
      alignas(32) uint64_t high[32];
      allLanes([&](uint32_t l) { high[l] = r[l] >> 32; });
      blendLanes(lo, r, 0xffffffffu, act);
      blendLanes(hi, high, ~0ull, act);
    }
  }
}

void BlockExecutor::execLane(Warp& w, const DInstr& d, uint32_t act) {
  // Every source as a plain column of 32 values: registers in place,
  // anything else (constants, negated predicates, offsets, special
  // registers) materialised, so the lane loop is loads and the call.
  alignas(32) uint64_t tmp[5][32];
  const uint64_t* col[5] = {kZeroColumn, kZeroColumn, kZeroColumn, kZeroColumn, kZeroColumn};
  const unsigned ns = d.nsrc;
  for (unsigned k = 0; k < ns; ++k) {
    const DOperand& o = d.src[k];
    col[k] = o.kind == DKind::Reg && o.value == 0 && !o.negate ? w.reg(o.reg) : sourceColumn(w, o, tmp[k]);
  }
  if (d.wfn) {
    // The whole warp in one call (no carry, one destination).
    alignas(32) uint64_t r[32];
    d.wfn(*d.in, col, r);
    storeColumn(w, d.dst[0], r, act);
    return;
  }
  uint64_t* d0 = d.dst[0].kind == DKind::Reg ? w.reg(d.dst[0].reg) : nullptr;
  uint64_t* d1 = d.ndst > 1 && d.dst[1].kind == DKind::Reg ? w.reg(d.dst[1].reg) : nullptr;
  uint64_t m0 = d.dst[0].mask, m1 = d.dst[1].mask;
  // Machine programs: a 64-bit destination goes through a column of its own,
  // split into the register pair after the lane loop.
  std::array<uint64_t, 32> wide[2];
  const bool pair0 = d.dst[0].kind == DKind::RegPair, pair1 = d.ndst > 1 && d.dst[1].kind == DKind::RegPair;
  if (pair0 | pair1) {
    if (pair0) d0 = wide[0].data(), m0 = ~0ull;
    if (pair1) d1 = wide[1].data(), m1 = ~0ull;
  }
  const ptx::Instr& in = *d.in;
  const LaneFn fn = d.fn;
  // s[nsrc] carries CC.CF in, r[ndst] carries it out (semantics.h).
  uint64_t s[6] = {0, 0, 0, 0, 0, 0}, r[4] = {0, 0, 0, 0};  // evalLane may write 4 slots
  if (d.carry_in || d.carry_out) {
    for (uint32_t m = act; m; m &= m - 1) {
      const uint32_t l = static_cast<uint32_t>(__builtin_ctz(m));
      for (unsigned k = 0; k < ns; ++k) s[k] = col[k][l];
      s[ns] = (w.carry >> l) & 1;
      fn(in, s, r);
      if (d0) d0[l] = r[0] & m0;
      if (d.carry_out) w.carry = (w.carry & ~(1u << l)) | (static_cast<uint32_t>(r[d.ndst] & 1) << l);
    }
    if (pair0) writePair(w, d.dst[0], d0, act);
    return;
  }
  for (uint32_t m = act; m; m &= m - 1) {
    const uint32_t l = static_cast<uint32_t>(__builtin_ctz(m));
    switch (ns) {
      case 5: s[4] = col[4][l]; [[fallthrough]];
      case 4: s[3] = col[3][l]; [[fallthrough]];
      case 3: s[2] = col[2][l]; [[fallthrough]];
      case 2: s[1] = col[1][l]; [[fallthrough]];
      case 1: s[0] = col[0][l]; [[fallthrough]];
      default: break;
    }
    fn(in, s, r);
    if (d0) d0[l] = r[0] & m0;
    if (d1) d1[l] = r[1] & m1;
  }
  if (pair0 | pair1) {
    if (pair0) writePair(w, d.dst[0], d0, act);
    if (pair1) writePair(w, d.dst[1], d1, act);
  }
}

// mov.b64 %rd, {%r1, %r2} packs; mov.b64 {%r1, %r2}, %rd unpacks (element 0
// in the low bits).
void BlockExecutor::execMovVec(Warp& w, const DInstr& d, uint32_t act) {
  const DOperand& dst = d.dst[0];
  const DOperand& src = d.src[0];
  const bool unpack = dst.kind == DKind::Vec;
  const unsigned n = unpack ? dst.vec_n : src.vec_n;
  const unsigned bits = n ? ptx::typeBits(d.in->type) / n : 0;
  const uint64_t em = bits >= 64 ? ~0ull : (1ull << bits) - 1;
  for (uint32_t m = act; m; m &= m - 1) {
    const uint32_t l = static_cast<uint32_t>(__builtin_ctz(m));
    if (unpack) {
      const uint64_t v = read(w, src, l);
      for (unsigned i = 0; i < n; ++i)
        if (dst.regs[i] != ptx::kNoReg) {
          const uint64_t e = (v >> (i * bits)) & em;
          w.reg(dst.regs[i])[l] = e & dst.masks[i];
          if (dst.pair) w.reg(dst.regs[i] + 1)[l] = e >> 32;
        }
    } else {
      uint64_t v = 0;
      for (unsigned i = 0; i < n; ++i) {
        uint64_t x = src.regs[i] != ptx::kNoReg ? w.reg(src.regs[i])[l]
                                                : (i * bits < 64 ? src.value >> (i * bits) : 0);
        if (src.pair && src.regs[i] != ptx::kNoReg) x |= w.reg(src.regs[i] + 1)[l] << 32;
        if (i * bits < 64) v |= (x & em) << (i * bits);
      }
      if (dst.kind != DKind::None) write(w, dst, l, v);
    }
  }
}

}  // namespace rfsim::func
