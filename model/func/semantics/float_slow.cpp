// The out-of-line float paths: directed rounding (.rz/.rm/.rp) through the
// host's rounding mode, .ftz/.sat, the .approx functions, half precision and
// cvt. This file is compiled with -frounding-math so that the compiler keeps
// float operations between the fesetround() calls and folds nothing under
// the wrong mode; the operands also go through volatiles for the same reason.
// Section numbers are PTX ISA 9.0.
#include <cfenv>
#include <cmath>
#include <limits>

#include "func/semantics/detail.h"

namespace rfsim::func::detail {

using ptx::Op;
using ptx::Round;

namespace {

int hostMode(Round r) {
  switch (r) {
    case Round::Rz: case Round::Rzi: return FE_TOWARDZERO;
    case Round::Rm: case Round::Rmi: return FE_DOWNWARD;
    case Round::Rp: case Round::Rpi: return FE_UPWARD;
    default: return FE_TONEAREST;
  }
}

// Runs one operation under the host rounding mode for r. The host's default
// mode is round-to-nearest; the simulator never changes it elsewhere.
template <class F>
F underMode(Round r, FOp op, F a, F b, F c) {
  const int m = hostMode(r);
  volatile F va = a, vb = b, vc = c;
  if (m != FE_TONEAREST) std::fesetround(m);
  F x = va, y = vb, z = vc, res;
  switch (op) {
    case FOp::Add: res = x + y; break;
    case FOp::Sub: res = x - y; break;
    case FOp::Mul: res = x * y; break;
    case FOp::Fma: res = std::fma(x, y, z); break;
    case FOp::Div: res = x / y; break;
    case FOp::Sqrt: res = std::sqrt(x); break;
    default: res = F(1) / x; break;  // Rcp
  }
  volatile F vr = res;
  if (m != FE_TONEAREST) std::fesetround(FE_TONEAREST);
  return vr;
}

// The same in double, rounded to odd (truncate, then set the last bit when
// inexact): a later rounding to any format of p <= 51 bits is then correct
// (the classic round-to-odd argument), so half precision needs no emulation.
double oddRound(Op op, double x, double y, double z) {
  volatile double va = x, vb = y, vc = z;
  std::feclearexcept(FE_INEXACT);
  std::fesetround(FE_TOWARDZERO);
  double a = va, b = vb, c = vc, r;
  switch (op) {
    case Op::Add: r = a + b; break;
    case Op::Sub: r = a - b; break;
    case Op::Mul: r = a * b; break;
    default: r = std::fma(a, b, c); break;
  }
  volatile double vr = r;
  const bool inexact = std::fetestexcept(FE_INEXACT);
  std::fesetround(FE_TONEAREST);
  double out = vr;
  if (inexact && std::isfinite(out)) {
    uint64_t u = bits(out) | 1;
    out = f64(u);
  }
  return out;
}

// An integer converted to double rounded to odd (exact below 2^53).
double intToDoubleOdd(int64_t v, bool sgn) {
  if (sgn) {
    uint64_t mag = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    double d = intToDoubleOdd(static_cast<int64_t>(mag), false);
    return v < 0 ? -d : d;
  }
  const uint64_t u = static_cast<uint64_t>(v);
  if (u < (1ull << 53)) return static_cast<double>(u);
  const unsigned sh = 64 - 53 - static_cast<unsigned>(__builtin_clzll(u));  // bits to drop
  uint64_t top = u >> sh;
  if (u & ((1ull << sh) - 1)) top |= 1;
  return std::ldexp(static_cast<double>(top), static_cast<int>(sh));
}

uint64_t sat32(uint64_t b) {  // .sat: clamp to [0.0, 1.0]; NaN -> +0.0
  if (nan32(b)) return 0;
  float f = f32(b);
  if (!(f > 0.0f)) return 0;
  return f > 1.0f ? 0x3f800000u : b;
}
uint64_t sat64(uint64_t b) {
  if (nan64(b)) return 0;
  double f = f64(b);
  if (!(f > 0.0)) return 0;
  return f > 1.0 ? 0x3ff0000000000000ull : b;
}

inline unsigned halfP(bool bf) { return bf ? 8 : 11; }     // significand bits incl. hidden
inline int halfBias(bool bf) { return bf ? 127 : 15; }
inline unsigned halfEMask(bool bf) { return bf ? 0xff : 0x1f; }
inline uint64_t halfOne(bool bf) { return bf ? 0x3f80 : 0x3c00; }

bool halfNaN(uint64_t h, bool bf) {
  const unsigned p = halfP(bf);
  return ((h >> (p - 1)) & halfEMask(bf)) == halfEMask(bf) && (h & ((1u << (p - 1)) - 1)) != 0;
}
uint64_t halfFtz(uint64_t h, bool bf) {
  return ((h >> (halfP(bf) - 1)) & halfEMask(bf)) == 0 ? (h & 0x8000) : h;
}
uint64_t halfSat(uint64_t h, bool bf) {
  if (halfNaN(h, bf)) return 0;
  double x = halfToDouble(h, bf);
  if (!(x > 0.0)) return 0;
  return x > 1.0 ? halfOne(bf) : h;
}

double roundToInt(double x, Round r) {
  switch (r) {
    case Round::Rzi: return std::trunc(x);
    case Round::Rmi: return std::floor(x);
    case Round::Rpi: return std::ceil(x);
    default: return std::nearbyint(x);  // .rni: nearest even (host mode is RN)
  }
}

uint64_t canonOf(ptx::Type t) {
  switch (t) {
    case ptx::Type::F64: return kNaN64;
    case ptx::Type::F32: return kNaN32;
    default: return kNaN16;
  }
}

// A double that is exactly representable in t (or any double for f64) to bits.
uint64_t encodeExact(double x, ptx::Type t) {
  switch (t) {
    case ptx::Type::F64: return bits(x);
    case ptx::Type::F32: return bits(static_cast<float>(x));
    default: return doubleToHalf(x, Round::Rn, t == ptx::Type::BF16);
  }
}

// Rounds a double to the float type t with rounding r (a float mode).
uint64_t roundTo(double x, ptx::Type t, Round r) {
  switch (t) {
    case ptx::Type::F64: return bits(x);
    case ptx::Type::F32: {
      const int m = hostMode(r);
      volatile double vx = x;
      if (m != FE_TONEAREST) std::fesetround(m);
      volatile float vr = static_cast<float>(vx);
      if (m != FE_TONEAREST) std::fesetround(FE_TONEAREST);
      return bits(static_cast<float>(vr));
    }
    default: return doubleToHalf(x, r, t == ptx::Type::BF16);
  }
}

double decode(uint64_t a, ptx::Type t, bool ftz) {
  switch (t) {
    case ptx::Type::F64: return f64(a);
    case ptx::Type::F32: return f32(ftz ? ftz32(a) : a);
    default: return halfToDouble(a & 0xffff, t == ptx::Type::BF16);
  }
}

}  // namespace

uint64_t slowF32(FOp op, Round rnd, bool ftz, bool sat, uint64_t a, uint64_t b, uint64_t c) {
  if (ftz) a = ftz32(a), b = ftz32(b), c = ftz32(c);
  uint64_t r = canon32(underMode<float>(rnd, op, f32(a), f32(b), f32(c)));
  if (ftz) r = ftz32(r);
  if (sat) r = sat32(r);
  return r;
}

uint64_t slowF64(FOp op, Round rnd, uint64_t a, uint64_t b, uint64_t c) {
  return canon64(underMode<double>(rnd, op, f64(a), f64(b), f64(c)));
}

// .approx (9.7.3.8 div, 9.7.3.13 rcp, 9.7.3.15 sqrt, 9.7.3.16 rsqrt, 9.7.3.18
// sin, 9.7.3.19 cos, 9.7.3.20 lg2, 9.7.3.21 ex2, 9.7.3.22 tanh). Model
// choice: computed in double by the host libm and rounded to nearest f32, i.e.
// (nearly) correctly rounded. Hardware's MUFU results differ in the last bits
// (e.g. sin/cos abs error up to 2^-20.9, ex2 2 ulp, rsqrt/rcp 1 ulp, div.approx
// flushes to 0 for |b| > 2^126); results never exceed that documented error.
uint64_t approxF32(Op op, bool ftz, uint64_t a, uint64_t b) {
  if (ftz) a = ftz32(a), b = ftz32(b);
  const double x = f32(a);
  double r;
  switch (op) {
    case Op::Div: r = x / static_cast<double>(f32(b)); break;
    case Op::Rcp: r = 1.0 / x; break;
    case Op::Sqrt: r = std::sqrt(x); break;
    case Op::Rsqrt: r = 1.0 / std::sqrt(x); break;
    case Op::Ex2: r = std::exp2(x); break;
    case Op::Lg2: r = std::log2(x); break;
    case Op::Sin: r = std::sin(x); break;
    case Op::Cos: r = std::cos(x); break;
    default: r = std::tanh(x); break;  // Tanh
  }
  uint64_t out = canon32(static_cast<float>(r));
  return ftz ? ftz32(out) : out;
}

// rcp.approx.ftz.f64 (9.7.3.14), rsqrt.approx{.ftz}.f64 (9.7.3.16/17):
// correctly rounded in the model.
uint64_t approxF64(Op op, uint64_t a) {
  double x = f64(a);
  if (std::fpclassify(x) == FP_SUBNORMAL) x = std::copysign(0.0, x);  // the .ftz forms
  double r = op == Op::Rsqrt ? 1.0 / std::sqrt(x) : (op == Op::Sqrt ? std::sqrt(x) : 1.0 / x);
  if (std::fpclassify(r) == FP_SUBNORMAL) r = std::copysign(0.0, r);
  return canon64(r);
}

double halfToDouble(uint64_t h, bool bf) {
  const unsigned p = halfP(bf);
  const int bias = halfBias(bf);
  const unsigned e = (h >> (p - 1)) & halfEMask(bf);
  const uint64_t f = h & ((1u << (p - 1)) - 1);
  const double sign = (h & 0x8000) ? -1.0 : 1.0;
  if (e == halfEMask(bf)) return f ? std::numeric_limits<double>::quiet_NaN() : sign * HUGE_VAL;
  if (e == 0) return sign * std::ldexp(static_cast<double>(f), 1 - bias - static_cast<int>(p - 1));
  return sign * std::ldexp(static_cast<double>(f | (1u << (p - 1))), static_cast<int>(e) - bias - static_cast<int>(p - 1));
}

// Exact rounding of a double to f16/bf16 in any float mode (9.7.9.21 cvt).
uint64_t doubleToHalf(double x, Round rnd, bool bf) {
  const unsigned p = halfP(bf);
  const int bias = halfBias(bf), emin = 1 - bias, emax = bias;
  const uint64_t sign = std::signbit(x) ? 0x8000 : 0;
  const uint64_t inf = static_cast<uint64_t>(halfEMask(bf)) << (p - 1);
  const uint64_t maxf = inf - 1;
  if (std::isnan(x)) return kNaN16;
  const double ax = std::fabs(x);
  if (ax == 0.0) return sign;
  bool toInf;  // what overflow rounds to
  switch (rnd) {
    case Round::Rz: toInf = false; break;
    case Round::Rm: toInf = sign != 0; break;
    case Round::Rp: toInf = sign == 0; break;
    default: toInf = true; break;
  }
  if (std::isinf(ax)) return sign | inf;
  const int e = std::ilogb(ax);
  const int qexp = (e > emin ? e : emin) - static_cast<int>(p - 1);
  const double m = std::ldexp(ax, -qexp);
  double mi = std::floor(m);
  const double frac = m - mi;
  bool up;
  switch (rnd) {
    case Round::Rz: up = false; break;
    case Round::Rm: up = sign && frac > 0; break;
    case Round::Rp: up = !sign && frac > 0; break;
    default: up = frac > 0.5 || (frac == 0.5 && std::fmod(mi, 2.0) == 1.0); break;
  }
  if (up) mi += 1.0;
  const double v = std::ldexp(mi, qexp);
  const double maxv = std::ldexp(static_cast<double>((1u << p) - 1), emax - static_cast<int>(p - 1));
  if (v > maxv) return sign | (toInf ? inf : maxf);
  if (v == 0.0) return sign;
  if (v < std::ldexp(1.0, emin))
    return sign | static_cast<uint64_t>(std::ldexp(v, -(emin - static_cast<int>(p - 1))));
  const int E = std::ilogb(v);
  const uint64_t mant = static_cast<uint64_t>(std::ldexp(v, -(E - static_cast<int>(p - 1)))) - (1u << (p - 1));
  return sign | (static_cast<uint64_t>(E + bias) << (p - 1)) | mant;
}

// One 16-bit lane of f16/bf16 arithmetic (9.7.4 half precision): exact
// double arithmetic rounded to odd, then one rounding to the half format.
uint64_t halfArith(Op op, Round rnd, bool ftz, bool sat, bool bf, uint64_t a, uint64_t b, uint64_t c) {
  if (op == Op::Neg) return a ^ 0x8000;
  if (op == Op::Abs) return a & 0x7fff;
  if (ftz) a = halfFtz(a, bf), b = halfFtz(b, bf), c = halfFtz(c, bf);
  if (op == Op::Min || op == Op::Max) {
    const bool na = halfNaN(a, bf), nb = halfNaN(b, bf);
    if (na || nb) return na && nb ? kNaN16 : (na ? b : a);
    const double x = halfToDouble(a, bf), y = halfToDouble(b, bf);
    if (x == y) return op == Op::Max ? (a & b) : (a | b);
    return (x < y) != (op == Op::Max) ? a : b;
  }
  const double r = oddRound(op, halfToDouble(a, bf), halfToDouble(b, bf), halfToDouble(c, bf));
  uint64_t h = doubleToHalf(r, rnd, bf);
  if (ftz) h = halfFtz(h, bf);
  if (sat) h = halfSat(h, bf);
  return h;
}

// cvt (9.7.9.21) for every pair with a float side; integer<->integer is
// inline in semantics.cpp. laneSupports() has checked the modifiers.
uint64_t cvt(const ptx::Instr& in, uint64_t a, uint64_t b) {
  using ptx::Type;
  const Type dt = in.type, st = in.type2;
  const ptx::Mods& m = in.mods;
  if (dt == Type::F16x2 || dt == Type::BF16x2) {  // cvt.rn.f16x2.f32 d, a, b: d = {a -> hi, b -> lo}
    const bool bfd = dt == Type::BF16x2;
    const double hi = f32(m.ftz ? ftz32(a) : a), lo = f32(m.ftz ? ftz32(b) : b);
    uint64_t h = doubleToHalf(hi, m.round, bfd), l = doubleToHalf(lo, m.round, bfd);
    if (m.sat) h = halfSat(h, bfd), l = halfSat(l, bfd);
    return (h << 16) | l;
  }
  if (isInt(st)) {  // integer -> float: one rounding in the requested mode
    const unsigned sn = widthOf(st);
    const bool sgn = isS(st);
    const int64_t sv = sext(a, sn);
    const uint64_t uv = trunc(a, sn);
    uint64_t r;
    const int hm = hostMode(m.round);
    if (dt == Type::F64 || dt == Type::F32) {
      volatile int64_t vs = sv;
      volatile uint64_t vu = uv;
      if (hm != FE_TONEAREST) std::fesetround(hm);
      if (dt == Type::F64) {
        volatile double v = sgn ? static_cast<double>(vs) : static_cast<double>(vu);
        if (hm != FE_TONEAREST) std::fesetround(FE_TONEAREST);
        r = bits(static_cast<double>(v));
      } else {
        volatile float v = sgn ? static_cast<float>(vs) : static_cast<float>(vu);
        if (hm != FE_TONEAREST) std::fesetround(FE_TONEAREST);
        r = bits(static_cast<float>(v));
      }
    } else {
      r = doubleToHalf(intToDoubleOdd(sgn ? sv : static_cast<int64_t>(uv), sgn), m.round, dt == Type::BF16);
    }
    if (m.sat) r = dt == Type::F64 ? sat64(r) : dt == Type::F32 ? sat32(r) : halfSat(r, dt == Type::BF16);
    return r;
  }

  const bool ftzIn = m.ftz && st == Type::F32;
  const double x = decode(a, st, ftzIn);
  if (isInt(dt)) {  // float -> integer: rounded, clamped to the range, NaN -> 0
    const unsigned dn = widthOf(dt);
    uint64_t r;
    if (std::isnan(x)) {
      r = 0;
    } else {
      const double v = roundToInt(x, m.round);
      if (isS(dt)) {
        const double lim = std::ldexp(1.0, static_cast<int>(dn) - 1);
        const int64_t hi = dn == 64 ? INT64_MAX : (int64_t{1} << (dn - 1)) - 1;
        if (v >= lim) r = static_cast<uint64_t>(hi);
        else if (v < -lim) r = static_cast<uint64_t>(-hi - 1);
        else r = static_cast<uint64_t>(static_cast<int64_t>(v));
      } else {
        const double lim = std::ldexp(1.0, static_cast<int>(dn));
        if (v >= lim) r = maskN(dn);
        else if (v <= 0.0) r = 0;
        else r = static_cast<uint64_t>(v);
      }
    }
    if (dn == 8) return isS(dt) ? static_cast<uint64_t>(sext(r, 8)) : (r & 0xff);
    return trunc(r, dn);
  }

  // float -> float
  uint64_t r;
  if (std::isnan(x)) {
    r = canonOf(dt);
  } else if (m.round >= Round::Rni) {  // same-size round to integral value
    r = encodeExact(roundToInt(x, m.round), dt);
  } else if (widthOf(dt) > widthOf(st) || dt == st) {
    r = encodeExact(x, dt);  // exact widening
  } else {
    r = roundTo(x, dt, m.round);
  }
  if (m.ftz && dt == Type::F32) r = ftz32(r);
  if (m.sat) r = dt == Type::F64 ? sat64(r) : dt == Type::F32 ? sat32(r) : halfSat(r, dt == Type::BF16);
  return r;
}

}  // namespace rfsim::func::detail
