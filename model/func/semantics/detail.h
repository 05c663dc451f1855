// Internal helpers of the lane semantics (not part of the contract): type
// widths, bit casts, canonical NaNs and the out-of-line float paths that run
// under a non-default rounding mode, flush subnormals or saturate.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "ptx/ir.h"

namespace rfsim::func::detail {

using ptx::Type;


// Width in bits of a value of type t (Pred: 1, None: 0). A table, not the
// front end's typeBits(), so that this library does not depend on rfsim_ptx.
inline constexpr uint8_t kTypeBits[] = {
    0,                       // None
    1,                       // Pred
    8, 16, 32, 64, 128,      // B8..B128
    8, 16, 32, 64,           // U8..U64
    8, 16, 32, 64,           // S8..S64
    16, 32, 16, 32, 32, 64,  // F16 F16x2 BF16 BF16x2 F32 F64
};
inline unsigned widthOf(Type t) { return kTypeBits[static_cast<unsigned>(t)]; }
inline bool isS(Type t) { return t >= Type::S8 && t <= Type::S64; }
inline bool isU(Type t) { return t >= Type::U8 && t <= Type::U64; }
inline bool isB(Type t) { return t >= Type::B8 && t <= Type::B128; }
inline bool isInt(Type t) { return t >= Type::B8 && t <= Type::S64 && t != Type::B128; }
inline bool isF(Type t) { return t >= Type::F16 && t <= Type::F64; }

inline uint64_t maskN(unsigned n) { return n >= 64 ? ~0ull : ((1ull << n) - 1); }
inline uint64_t trunc(uint64_t x, unsigned n) { return x & maskN(n); }
inline int64_t sext(uint64_t x, unsigned n) {
  return n >= 64 ? static_cast<int64_t>(x) : static_cast<int64_t>(x << (64 - n)) >> (64 - n);
}

inline float f32(uint64_t b) {
  uint32_t u = static_cast<uint32_t>(b);
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline double f64(uint64_t b) {
  double f;
  std::memcpy(&f, &b, 8);
  return f;
}
inline uint64_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline uint64_t bits(double f) {
  uint64_t u;
  std::memcpy(&u, &f, 8);
  return u;
}

// Canonical NaNs. f32: 0x7fffffff, the NaN NVIDIA GPUs produce for f32
// arithmetic whatever the input NaN; f16/bf16: 0x7fff, the canonical NaN the
// PTX ISA names for half-precision min/max (9.7.4). f64: no pattern is fixed
// by the ISA; we use 0x7fffffffffffffff (same shape), a model choice.
inline constexpr uint64_t kNaN16 = 0x7fff;
inline constexpr uint64_t kNaN32 = 0x7fffffff;
inline constexpr uint64_t kNaN64 = 0x7fffffffffffffffull;

inline bool nan32(uint64_t b) { return (b & 0x7fffffffu) > 0x7f800000u; }
inline bool nan64(uint64_t b) { return (b & 0x7fffffffffffffffull) > 0x7ff0000000000000ull; }
inline uint64_t canon32(float r) { return r != r ? kNaN32 : bits(r); }
inline uint64_t canon64(double r) { return r != r ? kNaN64 : bits(r); }
// Sign-preserving flush of a subnormal f32 (bits) to zero (.ftz).
inline uint64_t ftz32(uint64_t b) {
  b &= 0xffffffffu;
  return (b & 0x7f800000u) == 0 ? (b & 0x80000000u) : b;
}

// ---------------------------------------------------------------------------
// Out-of-line slow paths (float_slow.cpp, compiled with -frounding-math).

enum class FOp : uint8_t { Add, Sub, Mul, Fma, Div, Sqrt, Rcp };

// f32 arithmetic with any rounding (None = .rn), .ftz and .sat.
uint64_t slowF32(FOp op, ptx::Round rnd, bool ftz, bool sat, uint64_t a, uint64_t b, uint64_t c);
// f64 arithmetic with any rounding (None = .rn).
uint64_t slowF64(FOp op, ptx::Round rnd, uint64_t a, uint64_t b, uint64_t c);
// .approx transcendental ops (rsqrt ex2 lg2 sin cos tanh, and rcp/sqrt/div
// .approx): computed in double and rounded to nearest.
uint64_t approxF32(ptx::Op op, bool ftz, uint64_t a, uint64_t b);
uint64_t approxF64(ptx::Op op, uint64_t a);
// cvt: every pair accepted by laneSupports() (b: the second source of
// cvt.f16x2.f32 d, a, b).
uint64_t cvt(const ptx::Instr& in, uint64_t a, uint64_t b);
// Half precision: decode to double (exact), encode a double with a rounding
// mode (None = .rn); `bf` selects bf16 instead of f16.
double halfToDouble(uint64_t h, bool bf);
uint64_t doubleToHalf(double x, ptx::Round rnd, bool bf);
// f16 / f16x2 arithmetic (add sub mul fma min max neg abs); one 16-bit lane.
uint64_t halfArith(ptx::Op op, ptx::Round rnd, bool ftz, bool sat, bool bf, uint64_t a, uint64_t b, uint64_t c);


// Bit manipulation, in bit_ops.cpp.
unsigned msb64(uint64_t x);
uint64_t shl(ptx::Type t, uint64_t a, uint64_t b);
uint64_t shr(ptx::Type t, uint64_t a, uint64_t b);
uint64_t brev(uint64_t x, unsigned n);
uint64_t bfind(const ptx::Instr& in, uint64_t a);
uint64_t bfe(ptx::Type t, uint64_t a, uint64_t b, uint64_t c);
uint64_t bfi(ptx::Type t, uint64_t f, uint64_t base, uint64_t c, uint64_t dl);
uint64_t prmt(uint64_t a, uint64_t b, uint64_t c);
uint64_t lop3(uint64_t a, uint64_t b, uint64_t c, uint64_t lut);
uint64_t shf(const ptx::Instr& in, uint64_t a, uint64_t b, uint64_t c);
uint64_t bmsk(bool clamp, uint64_t a, uint64_t b);
uint64_t fns(uint64_t mask, uint64_t base, uint64_t offset);

}  // namespace rfsim::func::detail
