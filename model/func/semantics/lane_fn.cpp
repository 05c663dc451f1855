// laneFunction(): a lane function specialised for one instruction, chosen
// once at load time, so that the executor's per-lane loop skips evalLane()'s
// opcode and type dispatch for the instructions compilers emit most. Every
// specialisation computes exactly what evalLane() computes (the tests check
// them against each other); anything not listed here gets evalLane itself.
#include <cmath>

#include "func/semantics/detail.h"
#include "func/semantics/semantics.h"

namespace rfsim::func {

using namespace ptx;
using namespace detail;

namespace {

template <unsigned N>
constexpr uint64_t kM = N >= 64 ? ~0ull : (1ull << N) - 1;

template <unsigned N>
inline int64_t sx(uint64_t x) {
  return N >= 64 ? static_cast<int64_t>(x) : static_cast<int64_t>(x << (64 - N)) >> (64 - N);
}

template <unsigned N> void addI(const Instr&, const uint64_t* s, uint64_t* d) { d[0] = (s[0] + s[1]) & kM<N>; }
template <unsigned N> void subI(const Instr&, const uint64_t* s, uint64_t* d) { d[0] = (s[0] - s[1]) & kM<N>; }
template <unsigned N> void mulLo(const Instr&, const uint64_t* s, uint64_t* d) { d[0] = (s[0] * s[1]) & kM<N>; }
template <unsigned N> void madLo(const Instr&, const uint64_t* s, uint64_t* d) {
  d[0] = (s[0] * s[1] + s[2]) & kM<N>;
}
template <unsigned N> void andI(const Instr&, const uint64_t* s, uint64_t* d) { d[0] = (s[0] & s[1]) & kM<N>; }
template <unsigned N> void orI(const Instr&, const uint64_t* s, uint64_t* d) { d[0] = (s[0] | s[1]) & kM<N>; }
template <unsigned N> void xorI(const Instr&, const uint64_t* s, uint64_t* d) { d[0] = (s[0] ^ s[1]) & kM<N>; }
template <unsigned N> void notI(const Instr&, const uint64_t* s, uint64_t* d) { d[0] = ~s[0] & kM<N>; }
template <unsigned N> void movI(const Instr&, const uint64_t* s, uint64_t* d) { d[0] = s[0] & kM<N>; }
template <unsigned N> void selpI(const Instr&, const uint64_t* s, uint64_t* d) {
  d[0] = ((s[2] & 1) ? s[0] : s[1]) & kM<N>;
}
template <unsigned N> void shlI(const Instr&, const uint64_t* s, uint64_t* d) {
  const uint64_t sh = s[1] & 0xffffffffu;
  d[0] = sh >= N ? 0 : (s[0] << sh) & kM<N>;
}
template <unsigned N> void shrU(const Instr&, const uint64_t* s, uint64_t* d) {
  const uint64_t sh = s[1] & 0xffffffffu;
  d[0] = sh >= N ? 0 : (s[0] & kM<N>) >> sh;
}
template <unsigned N> void shrS(const Instr&, const uint64_t* s, uint64_t* d) {
  uint64_t sh = s[1] & 0xffffffffu;
  if (sh >= N) sh = N - 1;
  d[0] = static_cast<uint64_t>(sx<N>(s[0]) >> sh) & kM<N>;
}
template <bool S> void mulWide32(const Instr&, const uint64_t* s, uint64_t* d) {
  d[0] = S ? static_cast<uint64_t>(sx<32>(s[0]) * sx<32>(s[1])) : (s[0] & 0xffffffffu) * (s[1] & 0xffffffffu);
}
template <bool S> void madWide32(const Instr&, const uint64_t* s, uint64_t* d) {
  d[0] = (S ? static_cast<uint64_t>(sx<32>(s[0]) * sx<32>(s[1])) : (s[0] & 0xffffffffu) * (s[1] & 0xffffffffu)) + s[2];
}

// setp/int without .and/.or/.xor and one destination.
template <Cmp C, unsigned N, bool S>
void setpI(const Instr&, const uint64_t* s, uint64_t* d) {
  const uint64_t a = s[0] & kM<N>, b = s[1] & kM<N>;
  bool r;
  if constexpr (C == Cmp::Eq) r = a == b;
  else if constexpr (C == Cmp::Ne) r = a != b;
  else if constexpr (S) {
    const int64_t x = sx<N>(a), y = sx<N>(b);
    if constexpr (C == Cmp::Lt) r = x < y;
    else if constexpr (C == Cmp::Le) r = x <= y;
    else if constexpr (C == Cmp::Gt) r = x > y;
    else r = x >= y;
  } else {
    if constexpr (C == Cmp::Lt) r = a < b;
    else if constexpr (C == Cmp::Le) r = a <= b;
    else if constexpr (C == Cmp::Gt) r = a > b;
    else r = a >= b;
  }
  d[0] = r;
}

// W<F>::value: what pick() hands out for the lane function F (F itself, or
// F over a whole warp).
template <template <LaneFn> class W>
using Picked = decltype(W<&movI<1>>::value);

template <template <LaneFn> class W, unsigned N, bool S>
Picked<W> setpFor(Cmp c) {
  switch (c) {
    case Cmp::Eq: return W<&setpI<Cmp::Eq, N, S>>::value;
    case Cmp::Ne: return W<&setpI<Cmp::Ne, N, S>>::value;
    case Cmp::Lt: return W<&setpI<Cmp::Lt, N, S>>::value;
    case Cmp::Le: return W<&setpI<Cmp::Le, N, S>>::value;
    case Cmp::Gt: return W<&setpI<Cmp::Gt, N, S>>::value;
    case Cmp::Ge: return W<&setpI<Cmp::Ge, N, S>>::value;
    case Cmp::Lo: return W<&setpI<Cmp::Lt, N, false>>::value;
    case Cmp::Ls: return W<&setpI<Cmp::Le, N, false>>::value;
    case Cmp::Hi: return W<&setpI<Cmp::Gt, N, false>>::value;
    case Cmp::Hs: return W<&setpI<Cmp::Ge, N, false>>::value;
    default: return nullptr;
  }
}

// f32/f64, round to nearest, no .ftz/.sat.
void addF32(const Instr&, const uint64_t* s, uint64_t* d) { d[0] = canon32(f32(s[0]) + f32(s[1])); }
void subF32(const Instr&, const uint64_t* s, uint64_t* d) { d[0] = canon32(f32(s[0]) - f32(s[1])); }
void mulF32(const Instr&, const uint64_t* s, uint64_t* d) { d[0] = canon32(f32(s[0]) * f32(s[1])); }
void fmaF32(const Instr&, const uint64_t* s, uint64_t* d) {
  d[0] = canon32(std::fma(f32(s[0]), f32(s[1]), f32(s[2])));
}
void addF64(const Instr&, const uint64_t* s, uint64_t* d) { d[0] = canon64(f64(s[0]) + f64(s[1])); }
void subF64(const Instr&, const uint64_t* s, uint64_t* d) { d[0] = canon64(f64(s[0]) - f64(s[1])); }
void mulF64(const Instr&, const uint64_t* s, uint64_t* d) { d[0] = canon64(f64(s[0]) * f64(s[1])); }
void fmaF64(const Instr&, const uint64_t* s, uint64_t* d) {
  d[0] = canon64(std::fma(f64(s[0]), f64(s[1]), f64(s[2])));
}

// .approx f32 (rcp, sqrt, rsqrt; div.approx and div.full): in double,
// rounded to nearest, exactly as approxF32 (float_slow.cpp) computes them.
template <Op O, bool FTZ>
void approx32(const Instr&, const uint64_t* s, uint64_t* d) {
  uint64_t a = s[0], b = s[1];
  if (FTZ) a = ftz32(a), b = ftz32(b);
  const double x = f32(a);
  double r;
  if constexpr (O == Op::Div) r = x / static_cast<double>(f32(b));
  else if constexpr (O == Op::Rcp) r = 1.0 / x;
  else if constexpr (O == Op::Sqrt) r = std::sqrt(x);
  else r = 1.0 / std::sqrt(x);
  const uint64_t out = canon32(static_cast<float>(r));
  d[0] = FTZ ? ftz32(out) : out;
}

void cvtU64U32(const Instr&, const uint64_t* s, uint64_t* d) { d[0] = s[0] & 0xffffffffu; }
void cvtS64S32(const Instr&, const uint64_t* s, uint64_t* d) { d[0] = static_cast<uint64_t>(sx<32>(s[0])); }

#define RFSIM_BY_WIDTH(fn, n)                                                                  \
  ((n) == 16 ? W<&fn<16>>::value : (n) == 32 ? W<&fn<32>>::value : (n) == 64 ? W<&fn<64>>::value \
                                                                              : static_cast<Picked<W>>(nullptr))
#define RFSIM_FN(...) W<&__VA_ARGS__>::value

template <template <LaneFn> class W>
Picked<W> pick(const Instr& in) {
  const Type t = in.type;
  const Mods& m = in.mods;
  const unsigned n = widthOf(t);
  const bool intT = isInt(t) && n >= 16;
  const bool rnPlain = (m.round == Round::None || m.round == Round::Rn) && !m.ftz && !m.sat;
  if (m.cc || m.carry_in) return nullptr;
  switch (in.op) {
    case Op::Mov:
      if (in.dst[0].kind == OperandKind::Vec || in.src[0].kind == OperandKind::Vec) return nullptr;
      if (t == Type::Pred) return RFSIM_FN(movI<1>);
      return n >= 16 ? RFSIM_BY_WIDTH(movI, n) : nullptr;
    case Op::Add:
      if (intT && !m.sat) return RFSIM_BY_WIDTH(addI, n);
      if (t == Type::F32 && rnPlain) return RFSIM_FN(addF32);
      if (t == Type::F64 && rnPlain) return RFSIM_FN(addF64);
      return nullptr;
    case Op::Sub:
      if (intT && !m.sat) return RFSIM_BY_WIDTH(subI, n);
      if (t == Type::F32 && rnPlain) return RFSIM_FN(subF32);
      if (t == Type::F64 && rnPlain) return RFSIM_FN(subF64);
      return nullptr;
    case Op::Mul:
      if (intT && (m.mul == MulMode::Lo || m.mul == MulMode::None)) return RFSIM_BY_WIDTH(mulLo, n);
      if (intT && m.mul == MulMode::Wide && n == 32) return isS(t) ? RFSIM_FN(mulWide32<true>) : RFSIM_FN(mulWide32<false>);
      if (t == Type::F32 && rnPlain) return RFSIM_FN(mulF32);
      if (t == Type::F64 && rnPlain) return RFSIM_FN(mulF64);
      return nullptr;
    case Op::Mad: case Op::Fma:
      if (intT && (m.mul == MulMode::Lo || m.mul == MulMode::None) && !m.sat) return RFSIM_BY_WIDTH(madLo, n);
      if (intT && m.mul == MulMode::Wide && n == 32) return isS(t) ? RFSIM_FN(madWide32<true>) : RFSIM_FN(madWide32<false>);
      if (t == Type::F32 && rnPlain) return RFSIM_FN(fmaF32);
      if (t == Type::F64 && rnPlain) return RFSIM_FN(fmaF64);
      return nullptr;
    case Op::And: if (t == Type::Pred) return RFSIM_FN(andI<1>); return intT ? RFSIM_BY_WIDTH(andI, n) : nullptr;
    case Op::Or: if (t == Type::Pred) return RFSIM_FN(orI<1>); return intT ? RFSIM_BY_WIDTH(orI, n) : nullptr;
    case Op::Xor: if (t == Type::Pred) return RFSIM_FN(xorI<1>); return intT ? RFSIM_BY_WIDTH(xorI, n) : nullptr;
    case Op::Not: if (t == Type::Pred) return RFSIM_FN(notI<1>); return intT ? RFSIM_BY_WIDTH(notI, n) : nullptr;
    case Op::Shl: return intT ? RFSIM_BY_WIDTH(shlI, n) : nullptr;
    case Op::Shr:
      if (!intT) return nullptr;
      return isS(t) ? RFSIM_BY_WIDTH(shrS, n) : RFSIM_BY_WIDTH(shrU, n);
    case Op::Selp: return n >= 16 && n <= 64 ? RFSIM_BY_WIDTH(selpI, n) : nullptr;
    case Op::Setp:
      if (!intT || m.boolop != BoolOp::None || in.ndst != 1) return nullptr;
      if (n == 32) return isS(t) ? setpFor<W, 32, true>(m.cmp) : setpFor<W, 32, false>(m.cmp);
      if (n == 64) return isS(t) ? setpFor<W, 64, true>(m.cmp) : setpFor<W, 64, false>(m.cmp);
      return isS(t) ? setpFor<W, 16, true>(m.cmp) : setpFor<W, 16, false>(m.cmp);
    case Op::Div:
      if (t != Type::F32 || !(m.approx || m.full)) return nullptr;
      return m.ftz ? RFSIM_FN(approx32<Op::Div, true>) : RFSIM_FN(approx32<Op::Div, false>);
    case Op::Rcp:
      if (t != Type::F32 || !m.approx) return nullptr;
      return m.ftz ? RFSIM_FN(approx32<Op::Rcp, true>) : RFSIM_FN(approx32<Op::Rcp, false>);
    case Op::Sqrt:
      if (t != Type::F32 || !m.approx) return nullptr;
      return m.ftz ? RFSIM_FN(approx32<Op::Sqrt, true>) : RFSIM_FN(approx32<Op::Sqrt, false>);
    case Op::Rsqrt:
      if (t != Type::F32) return nullptr;
      return m.ftz ? RFSIM_FN(approx32<Op::Rsqrt, true>) : RFSIM_FN(approx32<Op::Rsqrt, false>);
    case Op::Cvt:
      if (m.sat) return nullptr;
      if (t == Type::U64 && in.type2 == Type::U32) return RFSIM_FN(cvtU64U32);
      if ((t == Type::S64 || t == Type::U64) && in.type2 == Type::S32) return RFSIM_FN(cvtS64S32);
      return nullptr;
    default:
      return nullptr;
  }
}

#undef RFSIM_BY_WIDTH
#undef RFSIM_FN

template <LaneFn F>
struct AsLane {
  static constexpr LaneFn value = F;
};

// F over the 32 lanes, inlined into one loop the compiler can vectorise.
// Every specialisation reads at most three sources and writes one result.
template <LaneFn F>
inline void lanes(const Instr& in, const uint64_t* const* s, uint64_t* __restrict r) {
  const uint64_t* a = s[0];
  const uint64_t* b = s[1];
  const uint64_t* c = s[2];
  for (unsigned l = 0; l < 32; ++l) {
    const uint64_t x[3] = {a[l], b[l], c[l]};
    uint64_t d[1];
    F(in, x, d);
    r[l] = d[0];
  }
}
template <LaneFn F>
void overWarp(const Instr& in, const uint64_t* const* s, uint64_t* r) {
  lanes<F>(in, s, r);
}
// The same loop with AVX2 and FMA, picked at run time where the host has
// them (the build targets baseline x86-64, where std::fma is a library call).
// Bit for bit the same results: IEEE operations round alike at any vector
// width, and this file is compiled with -ffp-contract=off.
#if defined(__x86_64__)
template <LaneFn F>
[[gnu::target("avx2,fma")]] void overWarpAvx2(const Instr& in, const uint64_t* const* s, uint64_t* r) {
  lanes<F>(in, s, r);
}
bool hostHasAvx2() {
  static const bool yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return yes;
}
#endif
template <LaneFn F>
struct AsWarp {
  static constexpr WarpFn value = &overWarp<F>;
};
#if defined(__x86_64__)
template <LaneFn F>
struct AsWarpAvx2 {
  static constexpr WarpFn value = &overWarpAvx2<F>;
};
#endif

}  // namespace

LaneFn laneFunction(const Instr& in) {
  LaneFn f = pick<AsLane>(in);
  return f ? f : &evalLane;
}

WarpFn warpFunction(const Instr& in) {
#if defined(__x86_64__)
  if (hostHasAvx2()) return pick<AsWarpAvx2>(in);
#endif
  return pick<AsWarp>(in);
}

}  // namespace rfsim::func
