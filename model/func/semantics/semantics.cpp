// Per-lane semantics: the hot path. evalLane() switches on the opcode, then
// on the type; the default-rounding float cases are inline and anything under
// a directed rounding mode, .sat or half precision goes out of line
// (float_slow.cpp). Section numbers are PTX ISA 9.0 (chapter 9.7: 9.7.1
// integer arithmetic, 9.7.2 extended precision, 9.7.3 float, 9.7.4 half
// precision, 9.7.6 comparison and selection, 9.7.8 logic and shift, 9.7.9
// data movement and conversion); the instruction is named with each number.
#include "func/semantics/semantics.h"

#include <cmath>

#include "func/semantics/detail.h"

namespace rfsim::func {

using namespace ptx;
using namespace detail;

namespace {

// An 8-bit integer result (cvt to .s8/.u8, see semantics.h) is extended per
// its signedness to 64 bits; every other result is truncated to its width.
inline uint64_t result(uint64_t v, Type t) {
  unsigned n = widthOf(t);
  if (n == 8) return isS(t) ? static_cast<uint64_t>(sext(v, 8)) : (v & 0xff);
  return trunc(v, n);
}

inline bool plainRound(const Mods& m) {
  return (m.round == Round::None || m.round == Round::Rn) && !m.ftz && !m.sat;
}
// Round-to-nearest without .sat: inline even with .ftz (fast-math code).
inline bool rnNoSat(const Mods& m) { return (m.round == Round::None || m.round == Round::Rn) && !m.sat; }
inline uint64_t ftzIf(bool on, uint64_t b) { return on ? ftz32(b) : b; }

inline bool isHalf(Type t) { return t == Type::F16 || t == Type::BF16; }
inline bool isBf(Type t) { return t == Type::BF16 || t == Type::BF16x2; }

uint64_t halfOp(const Instr& in, Op op, uint64_t a, uint64_t b, uint64_t c) {
  const Mods& m = in.mods;
  bool bf = isBf(in.type);
  if (isHalf(in.type)) return halfArith(op, m.round, m.ftz, m.sat, bf, a & 0xffff, b & 0xffff, c & 0xffff);
  uint64_t lo = halfArith(op, m.round, m.ftz, m.sat, bf, a & 0xffff, b & 0xffff, c & 0xffff);
  uint64_t hi = halfArith(op, m.round, m.ftz, m.sat, bf, (a >> 16) & 0xffff, (b >> 16) & 0xffff,
                          (c >> 16) & 0xffff);
  return lo | (hi << 16);
}

// ---------------------------------------------------------------------------
// Integer and float arithmetic (9.7.1, 9.7.3).

uint64_t addSub(const Instr& in, uint64_t a, uint64_t b, bool sub) {
  const Type t = in.type;
  switch (t) {
    case Type::F32:
      if (rnNoSat(in.mods)) {
        const bool z = in.mods.ftz;
        const float x = f32(ftzIf(z, a)), y = f32(ftzIf(z, b));
        return ftzIf(z, canon32(sub ? x - y : x + y));
      }
      return slowF32(sub ? FOp::Sub : FOp::Add, in.mods.round, in.mods.ftz, in.mods.sat, a, b, 0);
    case Type::F64:
      if (plainRound(in.mods)) return canon64(sub ? f64(a) - f64(b) : f64(a) + f64(b));
      return slowF64(sub ? FOp::Sub : FOp::Add, in.mods.round, a, b, 0);
    case Type::F16: case Type::F16x2: case Type::BF16: case Type::BF16x2:
      return halfOp(in, sub ? Op::Sub : Op::Add, a, b, 0);
    default:
      break;
  }
  if (in.mods.sat) {  // add.sat.s32 / sub.sat.s32 (9.7.1.1, 9.7.1.2)
    int64_t r = sub ? sext(a, 32) - sext(b, 32) : sext(a, 32) + sext(b, 32);
    if (r > INT32_MAX) r = INT32_MAX;
    if (r < INT32_MIN) r = INT32_MIN;
    return trunc(static_cast<uint64_t>(r), 32);
  }
  return trunc(sub ? a - b : a + b, widthOf(t));
}

// The full 2n-bit product's high n bits.
inline uint64_t mulHi(uint64_t a, uint64_t b, unsigned n, bool sgn) {
  if (n == 64) {
    if (sgn) {
      __int128 p = static_cast<__int128>(static_cast<int64_t>(a)) * static_cast<int64_t>(b);
      return static_cast<uint64_t>(p >> 64);
    }
    unsigned __int128 p = static_cast<unsigned __int128>(a) * b;
    return static_cast<uint64_t>(p >> 64);
  }
  if (sgn) return trunc(static_cast<uint64_t>((sext(a, n) * sext(b, n)) >> n), n);
  return trunc((trunc(a, n) * trunc(b, n)) >> n, n);
}
// The 2n-bit product (n <= 32).
inline uint64_t mulWide(uint64_t a, uint64_t b, unsigned n, bool sgn) {
  if (sgn) return trunc(static_cast<uint64_t>(sext(a, n) * sext(b, n)), 2 * n);
  return trunc(trunc(a, n) * trunc(b, n), 2 * n);
}

uint64_t mul(const Instr& in, uint64_t a, uint64_t b) {  // mul: 9.7.1.3, 9.7.3.5
  const Type t = in.type;
  switch (t) {
    case Type::F32:
      if (rnNoSat(in.mods)) {
        const bool z = in.mods.ftz;
        return ftzIf(z, canon32(f32(ftzIf(z, a)) * f32(ftzIf(z, b))));
      }
      return slowF32(FOp::Mul, in.mods.round, in.mods.ftz, in.mods.sat, a, b, 0);
    case Type::F64:
      if (plainRound(in.mods)) return canon64(f64(a) * f64(b));
      return slowF64(FOp::Mul, in.mods.round, a, b, 0);
    case Type::F16: case Type::F16x2: case Type::BF16: case Type::BF16x2:
      return halfOp(in, Op::Mul, a, b, 0);
    default:
      break;
  }
  const unsigned n = widthOf(t);
  switch (in.mods.mul) {
    case MulMode::Hi: return mulHi(a, b, n, isS(t));
    case MulMode::Wide: return mulWide(a, b, n, isS(t));
    default: return trunc(a * b, n);
  }
}

uint64_t mad(const Instr& in, uint64_t a, uint64_t b, uint64_t c) {  // mad: 9.7.1.4, fma/mad: 9.7.3.6/7
  const Type t = in.type;
  switch (t) {
    case Type::F32:  // mad.f32 on sm_20+ is fma.rn.f32 (9.7.3.7)
      if (rnNoSat(in.mods)) {
        const bool z = in.mods.ftz;
        return ftzIf(z, canon32(std::fma(f32(ftzIf(z, a)), f32(ftzIf(z, b)), f32(ftzIf(z, c)))));
      }
      return slowF32(FOp::Fma, in.mods.round, in.mods.ftz, in.mods.sat, a, b, c);
    case Type::F64:
      if (plainRound(in.mods)) return canon64(std::fma(f64(a), f64(b), f64(c)));
      return slowF64(FOp::Fma, in.mods.round, a, b, c);
    case Type::F16: case Type::F16x2: case Type::BF16: case Type::BF16x2:
      return halfOp(in, Op::Fma, a, b, c);
    default:
      break;
  }
  const unsigned n = widthOf(t);
  const bool sgn = isS(t);
  switch (in.mods.mul) {
    case MulMode::Hi: {
      uint64_t hi = mulHi(a, b, n, sgn);
      if (in.mods.sat) {  // mad.hi.sat.s32: clamp the 33-bit sum
        int64_t r = sext(hi, 32) + sext(c, 32);
        if (r > INT32_MAX) r = INT32_MAX;
        if (r < INT32_MIN) r = INT32_MIN;
        return trunc(static_cast<uint64_t>(r), 32);
      }
      return trunc(hi + c, n);
    }
    case MulMode::Wide: return trunc(mulWide(a, b, n, sgn) + c, 2 * n);
    default: return trunc(a * b + c, n);
  }
}

// mul24/mad24 (9.7.1.5, 9.7.1.6): 24-bit operands, 48-bit product; .lo keeps
// bits 31..0, .hi bits 47..16.
uint64_t mul24(const Instr& in, uint64_t a, uint64_t b, uint64_t c, bool addc) {
  const bool sgn = isS(in.type);
  int64_t x = sgn ? sext(a, 24) : static_cast<int64_t>(trunc(a, 24));
  int64_t y = sgn ? sext(b, 24) : static_cast<int64_t>(trunc(b, 24));
  int64_t p = x * y;
  if (in.mods.mul == MulMode::Hi) {
    int64_t hi = p >> 16;  // arithmetic for signed; p >= 0 for unsigned
    if (addc && in.mods.sat) {
      int64_t r = sext(static_cast<uint64_t>(hi), 32) + sext(c, 32);
      if (r > INT32_MAX) r = INT32_MAX;
      if (r < INT32_MIN) r = INT32_MIN;
      return trunc(static_cast<uint64_t>(r), 32);
    }
    return trunc(static_cast<uint64_t>(hi) + (addc ? c : 0), 32);
  }
  return trunc(static_cast<uint64_t>(p) + (addc ? c : 0), 32);
}

// div/rem (9.7.1.8, 9.7.1.9). Division by zero is undefined in PTX; we return
// all ones for div (what the hardware's unsigned sequence gives) and the
// dividend for rem (so that a == q*b + r still holds with b == 0).
uint64_t divInt(Type t, uint64_t a, uint64_t b) {
  const unsigned n = widthOf(t);
  if (trunc(b, n) == 0) return maskN(n);
  if (isS(t)) {
    int64_t x = sext(a, n), y = sext(b, n);
    if (y == -1) return trunc(0 - static_cast<uint64_t>(x), n);  // INT_MIN / -1 wraps to INT_MIN
    return trunc(static_cast<uint64_t>(x / y), n);
  }
  return trunc(a, n) / trunc(b, n);
}
uint64_t remInt(Type t, uint64_t a, uint64_t b) {
  const unsigned n = widthOf(t);
  if (trunc(b, n) == 0) return trunc(a, n);
  if (isS(t)) {
    int64_t x = sext(a, n), y = sext(b, n);
    if (y == -1) return 0;
    return trunc(static_cast<uint64_t>(x % y), n);
  }
  return trunc(a, n) % trunc(b, n);
}

uint64_t divOp(const Instr& in, uint64_t a, uint64_t b) {  // div: 9.7.3.8
  const Mods& m = in.mods;
  switch (in.type) {
    case Type::F32:
      if (m.approx || m.full) return approxF32(Op::Div, m.ftz, a, b);
      if (plainRound(m)) return canon32(f32(a) / f32(b));
      return slowF32(FOp::Div, m.round, m.ftz, m.sat, a, b, 0);
    case Type::F64:
      if (plainRound(m)) return canon64(f64(a) / f64(b));
      return slowF64(FOp::Div, m.round, a, b, 0);
    default:
      return divInt(in.type, a, b);
  }
}

uint64_t absNeg(const Instr& in, uint64_t a, bool neg) {  // abs/neg: 9.7.1.10/11, 9.7.3.9/10
  const Type t = in.type;
  switch (t) {
    case Type::F32: {
      uint64_t x = in.mods.ftz ? ftz32(a) : trunc(a, 32);
      return neg ? x ^ 0x80000000u : x & 0x7fffffffu;
    }
    case Type::F64:
      return neg ? a ^ 0x8000000000000000ull : a & 0x7fffffffffffffffull;
    case Type::F16: case Type::F16x2: case Type::BF16: case Type::BF16x2:
      return halfOp(in, neg ? Op::Neg : Op::Abs, a, 0, 0);
    default:
      break;
  }
  const unsigned n = widthOf(t);
  if (neg) return trunc(0 - a, n);
  int64_t x = sext(a, n);
  return trunc(x < 0 ? 0 - static_cast<uint64_t>(x) : static_cast<uint64_t>(x), n);
}

// min/max (9.7.1.12/13, 9.7.3.11/12): a NaN operand yields the other one, two
// NaNs the canonical NaN; -0.0 orders below +0.0.
uint64_t minMax(const Instr& in, uint64_t a, uint64_t b, bool isMax) {
  const Type t = in.type;
  switch (t) {
    case Type::F32: {
      if (in.mods.ftz) a = ftz32(a), b = ftz32(b);
      a = trunc(a, 32), b = trunc(b, 32);
      bool na = nan32(a), nb = nan32(b);
      if (na || nb) return na && nb ? kNaN32 : (na ? b : a);
      float x = f32(a), y = f32(b);
      if (x == y) return isMax ? (a & b) : (a | b);  // only differs for +-0
      return (x < y) != isMax ? a : b;
    }
    case Type::F64: {
      bool na = nan64(a), nb = nan64(b);
      if (na || nb) return na && nb ? kNaN64 : (na ? b : a);
      double x = f64(a), y = f64(b);
      if (x == y) return isMax ? (a & b) : (a | b);
      return (x < y) != isMax ? a : b;
    }
    case Type::F16: case Type::F16x2: case Type::BF16: case Type::BF16x2:
      return halfOp(in, isMax ? Op::Max : Op::Min, a, b, 0);
    default:
      break;
  }
  const unsigned n = widthOf(t);
  bool lt = isS(t) ? sext(a, n) < sext(b, n) : trunc(a, n) < trunc(b, n);
  return trunc(lt != isMax ? a : b, n);
}

uint64_t sqrtRcp(const Instr& in, uint64_t a, bool isSqrt) {  // rcp 9.7.3.13/14, sqrt 9.7.3.15
  const Mods& m = in.mods;
  if (in.type == Type::F32) {
    if (m.approx) return approxF32(isSqrt ? Op::Sqrt : Op::Rcp, m.ftz, a, 0);
    if (plainRound(m)) return canon32(isSqrt ? std::sqrt(f32(a)) : 1.0f / f32(a));
    return slowF32(isSqrt ? FOp::Sqrt : FOp::Rcp, m.round, m.ftz, m.sat, a, 0, 0);
  }
  if (m.approx) return approxF64(isSqrt ? Op::Sqrt : Op::Rcp, a);
  if (plainRound(m)) return canon64(isSqrt ? std::sqrt(f64(a)) : 1.0 / f64(a));
  return slowF64(isSqrt ? FOp::Sqrt : FOp::Rcp, m.round, a, 0, 0);
}

// ---------------------------------------------------------------------------
// Comparison and selection (9.7.6).

bool cmpInt(Cmp c, Type t, uint64_t a, uint64_t b) {
  const unsigned n = widthOf(t);
  const uint64_t ua = trunc(a, n), ub = trunc(b, n);
  const int64_t sa = sext(a, n), sb = sext(b, n);
  const bool sgn = isS(t);
  switch (c) {
    case Cmp::Eq: return ua == ub;
    case Cmp::Ne: return ua != ub;
    case Cmp::Lt: return sgn ? sa < sb : ua < ub;
    case Cmp::Le: return sgn ? sa <= sb : ua <= ub;
    case Cmp::Gt: return sgn ? sa > sb : ua > ub;
    case Cmp::Ge: return sgn ? sa >= sb : ua >= ub;
    case Cmp::Lo: return ua < ub;
    case Cmp::Ls: return ua <= ub;
    case Cmp::Hi: return ua > ub;
    case Cmp::Hs: return ua >= ub;
    default: return false;
  }
}

bool cmpFloat(Cmp c, double x, double y) {
  const bool u = std::isnan(x) || std::isnan(y);
  switch (c) {
    case Cmp::Eq: return !u && x == y;
    case Cmp::Ne: return !u && x != y;
    case Cmp::Lt: return !u && x < y;
    case Cmp::Le: return !u && x <= y;
    case Cmp::Gt: return !u && x > y;
    case Cmp::Ge: return !u && x >= y;
    case Cmp::Equ: return u || x == y;
    case Cmp::Neu: return u || x != y;
    case Cmp::Ltu: return u || x < y;
    case Cmp::Leu: return u || x <= y;
    case Cmp::Gtu: return u || x > y;
    case Cmp::Geu: return u || x >= y;
    case Cmp::Num: return !u;
    case Cmp::Nan: return u;
    default: return false;
  }
}

bool compare(const Instr& in, Type t, uint64_t a, uint64_t b) {
  switch (t) {
    case Type::F32:
      if (in.mods.ftz) a = ftz32(a), b = ftz32(b);
      return cmpFloat(in.mods.cmp, f32(a), f32(b));
    case Type::F64:
      return cmpFloat(in.mods.cmp, f64(a), f64(b));
    case Type::F16: case Type::BF16:
      return cmpFloat(in.mods.cmp, halfToDouble(a & 0xffff, t == Type::BF16),
                      halfToDouble(b & 0xffff, t == Type::BF16));
    default:
      return cmpInt(in.mods.cmp, t, a, b);
  }
}

inline bool combine(BoolOp op, bool t, bool c) {
  switch (op) {
    case BoolOp::And: return t && c;
    case BoolOp::Or: return t || c;
    case BoolOp::Xor: return t != c;
    default: return t;
  }
}

void setp(const Instr& in, const uint64_t* s, uint64_t* d) {  // setp 9.7.6.2
  const bool t = compare(in, in.type, s[0], s[1]);
  const bool c = in.mods.boolop != BoolOp::None && (s[2] & 1);
  d[0] = combine(in.mods.boolop, t, c);
  if (in.ndst > 1) d[1] = combine(in.mods.boolop, !t, c);
}

uint64_t set(const Instr& in, const uint64_t* s) {  // set 9.7.6.1
  const Type st = in.type2 == Type::None ? in.type : in.type2;
  bool t = compare(in, st, s[0], s[1]);
  if (in.mods.boolop != BoolOp::None) t = combine(in.mods.boolop, t, s[2] & 1);
  if (!t) return 0;
  return in.type == Type::F32 ? 0x3f800000u : 0xffffffffu;
}

uint64_t slct(const Instr& in, uint64_t a, uint64_t b, uint64_t c) {  // slct 9.7.6.4
  bool ge;
  if (in.type2 == Type::F32) {
    if (in.mods.ftz) c = ftz32(c);
    ge = f32(c) >= 0.0f;  // -0.0 counts as >= 0; NaN selects b
  } else {
    ge = sext(c, 32) >= 0;
  }
  return trunc(ge ? a : b, widthOf(in.type));
}

// ---------------------------------------------------------------------------
// Data movement and conversion (mov 9.7.9.1, cvt 9.7.9.21).

void mov(const Instr& in, const uint64_t* s, uint64_t* d) {
  const unsigned n = widthOf(in.type);
  if (in.ndst && in.dst[0].kind == OperandKind::Vec) {  // unpack
    const unsigned k = in.dst[0].vec_n, ew = n / k;
    for (unsigned i = 0; i < k; ++i) d[i] = trunc(s[0] >> (i * ew), ew);
    return;
  }
  if (in.nsrc && in.src[0].kind == OperandKind::Vec) {  // pack
    const unsigned k = in.src[0].vec_n, ew = n / k;
    uint64_t r = 0;
    for (unsigned i = 0; i < k; ++i) r |= trunc(s[i], ew) << (i * ew);
    d[0] = r;
    return;
  }
  d[0] = trunc(s[0], n);
}

uint64_t cvtIntInt(const Instr& in, uint64_t a) {
  const Type dt = in.type, st = in.type2;
  const unsigned sn = widthOf(st), dn = widthOf(dt);
  if (!in.mods.sat) return result(isS(st) ? static_cast<uint64_t>(sext(a, sn)) : trunc(a, sn), dt);
  // .sat: clamp the source value to the destination's range.
  __int128 v = isS(st) ? static_cast<__int128>(sext(a, sn)) : static_cast<__int128>(trunc(a, sn));
  __int128 lo, hi;
  if (isS(dt)) {
    hi = (static_cast<__int128>(1) << (dn - 1)) - 1;
    lo = -hi - 1;
  } else {
    hi = (static_cast<__int128>(1) << dn) - 1;
    lo = 0;
  }
  if (v > hi) v = hi;
  if (v < lo) v = lo;
  return result(static_cast<uint64_t>(v), dt);
}

uint64_t dp(const Instr& in, uint64_t a, uint64_t b, uint64_t c, bool four) {  // dp4a/dp2a 9.7.1.23/24
  const bool sa = isS(in.type);
  const bool sb = isS(in.type2 == Type::None ? in.type : in.type2);
  int64_t sum = 0;
  auto byte = [&](uint64_t x, unsigned i, bool sg) {
    uint64_t v = (x >> (8 * i)) & 0xff;
    return sg ? sext(v, 8) : static_cast<int64_t>(v);
  };
  if (four) {
    for (unsigned i = 0; i < 4; ++i) sum += byte(a, i, sa) * byte(b, i, sb);
  } else {
    const unsigned base = in.mods.mul == MulMode::Hi ? 2 : 0;
    for (unsigned i = 0; i < 2; ++i) {
      uint64_t h = (a >> (16 * i)) & 0xffff;
      int64_t x = sa ? sext(h, 16) : static_cast<int64_t>(h);
      sum += x * byte(b, base + i, sb);
    }
  }
  return trunc(c + static_cast<uint64_t>(sum), 32);
}

// Extended-precision arithmetic with the carry flag (9.7.2: add.cc, addc,
// sub.cc, subc, mad.cc, madc). CC.CF is per-lane state the caller keeps: the
// carry-in arrives in s[nsrc], the carry-out goes to d[ndst] (semantics.h).
// For sub/subc CF is the borrow (d = a - (b + CF)).
void carryOp(const Instr& in, const uint64_t* s, uint64_t* d) {
  const unsigned n = widthOf(in.type);
  const unsigned __int128 cin = in.mods.carry_in ? (s[in.nsrc] & 1) : 0;
  const unsigned __int128 a = trunc(s[0], n), b = trunc(s[1], n);
  unsigned __int128 r;
  uint64_t cout;
  if (in.op == Op::Sub) {
    const unsigned __int128 sub = b + cin;
    cout = a < sub;
    r = a - sub;
  } else {
    unsigned __int128 x = a, y = b;
    if (in.op == Op::Mad) {  // the .lo/.hi half of a * b, plus c
      x = in.mods.mul == MulMode::Hi ? mulHi(s[0], s[1], n, isS(in.type)) : trunc(s[0] * s[1], n);
      y = trunc(s[2], n);
    }
    r = x + y + cin;
    cout = static_cast<uint64_t>(r >> n) & 1;
  }
  d[0] = trunc(static_cast<uint64_t>(r), n);
  if (in.mods.cc) d[in.ndst] = cout;
}

}  // namespace

void evalLane(const Instr& in, const uint64_t* s, uint64_t* d) {
  const Type t = in.type;
  switch (in.op) {
    case Op::Mov: mov(in, s, d); return;
    case Op::Cvt:
      d[0] = (isInt(t) && isInt(in.type2)) ? cvtIntInt(in, s[0]) : detail::cvt(in, s[0], s[1]);
      return;
    case Op::Add:
      if (__builtin_expect(in.mods.cc || in.mods.carry_in, 0)) return carryOp(in, s, d);
      d[0] = addSub(in, s[0], s[1], false);
      return;
    case Op::Sub:
      if (__builtin_expect(in.mods.cc || in.mods.carry_in, 0)) return carryOp(in, s, d);
      d[0] = addSub(in, s[0], s[1], true);
      return;
    case Op::Mul: d[0] = mul(in, s[0], s[1]); return;
    case Op::Mad:
      if (__builtin_expect(in.mods.cc || in.mods.carry_in, 0)) return carryOp(in, s, d);
      d[0] = mad(in, s[0], s[1], s[2]);
      return;
    case Op::Fma: d[0] = mad(in, s[0], s[1], s[2]); return;
    case Op::Mul24: d[0] = mul24(in, s[0], s[1], 0, false); return;
    case Op::Mad24: d[0] = mul24(in, s[0], s[1], s[2], true); return;
    case Op::Div: d[0] = divOp(in, s[0], s[1]); return;
    case Op::Rem: d[0] = remInt(t, s[0], s[1]); return;
    case Op::Abs: d[0] = absNeg(in, s[0], false); return;
    case Op::Neg: d[0] = absNeg(in, s[0], true); return;
    case Op::Min: d[0] = minMax(in, s[0], s[1], false); return;
    case Op::Max: d[0] = minMax(in, s[0], s[1], true); return;
    case Op::Sad: {  // sad 9.7.1.7: c + |a - b|
      const unsigned n = widthOf(t);
      uint64_t diff;
      if (isS(t)) {
        int64_t x = sext(s[0], n), y = sext(s[1], n);
        diff = x >= y ? static_cast<uint64_t>(x) - static_cast<uint64_t>(y)
                      : static_cast<uint64_t>(y) - static_cast<uint64_t>(x);
      } else {
        uint64_t x = trunc(s[0], n), y = trunc(s[1], n);
        diff = x >= y ? x - y : y - x;
      }
      d[0] = trunc(s[2] + diff, n);
      return;
    }
    case Op::Rcp: d[0] = sqrtRcp(in, s[0], false); return;
    case Op::Sqrt: d[0] = sqrtRcp(in, s[0], true); return;
    case Op::Rsqrt:
      d[0] = t == Type::F64 ? approxF64(Op::Rsqrt, s[0]) : approxF32(Op::Rsqrt, in.mods.ftz, s[0], 0);
      return;
    case Op::Ex2: case Op::Lg2: case Op::Sin: case Op::Cos: case Op::Tanh:
      d[0] = approxF32(in.op, in.mods.ftz, s[0], 0);
      return;
    case Op::Copysign:  // copysign 9.7.3.2: d = b with the sign of a
      d[0] = t == Type::F64 ? (s[1] & 0x7fffffffffffffffull) | (s[0] & 0x8000000000000000ull)
                            : (s[1] & 0x7fffffffu) | (s[0] & 0x80000000u);
      return;
    case Op::Testp: {  // testp 9.7.3.1: .number / .notanumber (the IR carries them in mods.cmp)
      const bool nan = t == Type::F64 ? nan64(s[0]) : nan32(s[0]);
      d[0] = in.mods.cmp == Cmp::Nan ? nan : !nan;
      return;
    }
    case Op::And: d[0] = trunc(s[0] & s[1], widthOf(t)); return;
    case Op::Or: d[0] = trunc(s[0] | s[1], widthOf(t)); return;
    case Op::Xor: d[0] = trunc(s[0] ^ s[1], widthOf(t)); return;
    case Op::Not: d[0] = trunc(~s[0], widthOf(t)); return;
    case Op::Cnot: d[0] = trunc(s[0], widthOf(t)) == 0 ? 1 : 0; return;
    case Op::Shl: d[0] = shl(t, s[0], s[1]); return;
    case Op::Shr: d[0] = shr(t, s[0], s[1]); return;
    case Op::Popc: d[0] = static_cast<uint64_t>(__builtin_popcountll(trunc(s[0], widthOf(t)))); return;
    case Op::Clz: {
      const unsigned n = widthOf(t);
      const uint64_t x = trunc(s[0], n);
      d[0] = x == 0 ? n : n - 1 - msb64(x);
      return;
    }
    case Op::Brev: d[0] = brev(s[0], widthOf(t)); return;
    case Op::Bfind: d[0] = bfind(in, s[0]); return;
    case Op::Bfe: d[0] = bfe(t, s[0], s[1], s[2]); return;
    case Op::Bfi: d[0] = bfi(t, s[0], s[1], s[2], s[3]); return;
    case Op::Prmt: d[0] = prmt(s[0], s[1], s[2]); return;
    case Op::Lop3: d[0] = lop3(s[0], s[1], s[2], s[3]); return;
    case Op::Shf: d[0] = shf(in, s[0], s[1], s[2]); return;
    case Op::Bmsk: d[0] = bmsk(in.mods.shift_clamp, s[0], s[1]); return;
    case Op::Fns: d[0] = fns(s[0], s[1], s[2]); return;
    case Op::Setp: setp(in, s, d); return;
    case Op::Set: d[0] = set(in, s); return;
    case Op::Selp: d[0] = trunc((s[2] & 1) ? s[0] : s[1], widthOf(t)); return;
    case Op::Slct: d[0] = slct(in, s[0], s[1], s[2]); return;
    case Op::Dp4a: d[0] = dp(in, s[0], s[1], s[2], true); return;
    case Op::Dp2a: d[0] = dp(in, s[0], s[1], s[2], false); return;
    default:
      return;  // not a lane op; laneSupports() rejected it
  }
}

bool isLaneOp(Op op) {
  switch (op) {
    case Op::Ld: case Op::Ldu: case Op::St: case Op::Cvta: case Op::Prefetch:
    case Op::Bra: case Op::Call: case Op::Ret: case Op::Exit: case Op::Trap: case Op::Brkpt:
    case Op::Bar: case Op::Membar: case Op::Fence: case Op::Atom: case Op::Red: case Op::Shfl:
    case Op::Vote: case Op::Activemask: case Op::Match: case Op::Nanosleep: case Op::Ext: case Op::Count_:
      return false;
    default:
      return true;
  }
}

}  // namespace rfsim::func
