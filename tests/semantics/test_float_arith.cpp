// Float arithmetic (PTX ISA 9.0, 9.7.3 and 9.7.4): rounding modes, .ftz,
// .sat, NaN rules, the .approx functions and half precision.
#include <cfenv>
#include <cmath>
#include <limits>

#include "sem_helpers.h"

using namespace semtest;

namespace {

Instr fop(Op op, Type t, unsigned n, Round r = Round::None) {
  Instr in = mk(op, t, n);
  in.mods.round = r;
  return in;
}

// Deterministic generator of finite floats with exponents in [-10, 10].
struct Gen {
  uint64_t s = 0x9e3779b97f4a7c15ull;
  uint32_t next() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(s >> 32);
  }
  float f() {
    uint32_t r = next();
    uint32_t e = 127 - 10 + (r % 21);
    return bf((r & 0x80000000u) | (e << 23) | (next() & 0x7fffff));
  }
};

}  // namespace

TEST_CASE("add.f32 rounding modes on a value between two floats", "[semantics]") {
  const uint64_t one = fb(1.0f), frac = 0x33c00000;  // 3 * 2^-25 = 0.75 ulp of 1.0
  CHECK(run(fop(Op::Add, Type::F32, 2), {one, frac}) == 0x3f800001u);
  CHECK(run(fop(Op::Add, Type::F32, 2, Round::Rn), {one, frac}) == 0x3f800001u);
  CHECK(run(fop(Op::Add, Type::F32, 2, Round::Rz), {one, frac}) == 0x3f800000u);
  CHECK(run(fop(Op::Add, Type::F32, 2, Round::Rm), {one, frac}) == 0x3f800000u);
  CHECK(run(fop(Op::Add, Type::F32, 2, Round::Rp), {one, frac}) == 0x3f800001u);
  const uint64_t mone = fb(-1.0f), mfrac = 0xb3c00000;
  CHECK(run(fop(Op::Add, Type::F32, 2, Round::Rn), {mone, mfrac}) == 0xbf800001u);
  CHECK(run(fop(Op::Add, Type::F32, 2, Round::Rz), {mone, mfrac}) == 0xbf800000u);
  CHECK(run(fop(Op::Add, Type::F32, 2, Round::Rm), {mone, mfrac}) == 0xbf800001u);
  CHECK(run(fop(Op::Add, Type::F32, 2, Round::Rp), {mone, mfrac}) == 0xbf800000u);
  // sub: 1 - 0.75 ulp(1)/2
  CHECK(run(fop(Op::Sub, Type::F32, 2, Round::Rp), {one, 0x33400000}) == 0x3f800000u);
  CHECK(run(fop(Op::Sub, Type::F32, 2, Round::Rm), {one, 0x33400000}) == 0x3f7fffffu);
  // the host's rounding mode is back to nearest afterwards
  CHECK(std::fegetround() == FE_TONEAREST);
}

TEST_CASE("f32 add/mul under every mode bracket the exact result", "[semantics]") {
  Gen g;
  for (int i = 0; i < 20000; ++i) {
    const float a = g.f(), b = g.f();
    const bool isMul = i & 1;
    const double exact = isMul ? static_cast<double>(a) * b : static_cast<double>(a) + b;  // exact in double
    const Op op = isMul ? Op::Mul : Op::Add;
    const float rn = bf(run(fop(op, Type::F32, 2, Round::Rn), {fb(a), fb(b)}));
    const float rz = bf(run(fop(op, Type::F32, 2, Round::Rz), {fb(a), fb(b)}));
    const float rm = bf(run(fop(op, Type::F32, 2, Round::Rm), {fb(a), fb(b)}));
    const float rp = bf(run(fop(op, Type::F32, 2, Round::Rp), {fb(a), fb(b)}));
    INFO(a << (isMul ? " * " : " + ") << b);
    REQUIRE(rn == (isMul ? a * b : a + b));
    REQUIRE(rm <= exact);
    REQUIRE(rp >= exact);
    if (static_cast<double>(static_cast<float>(exact)) == exact) {
      REQUIRE(rm == rp);
    } else {
      REQUIRE(std::nextafter(rm, std::numeric_limits<float>::infinity()) == rp);
    }
    REQUIRE(rz == (exact < 0 ? rp : rm));
  }
}

TEST_CASE("f64 mul/div/sqrt rounding modes", "[semantics]") {
  const uint64_t a = 0x3ff0000000000001ull;  // 1 + 2^-52; a*a = 1 + 2^-51 + 2^-104
  CHECK(run(fop(Op::Mul, Type::F64, 2, Round::Rn), {a, a}) == 0x3ff0000000000002ull);
  CHECK(run(fop(Op::Mul, Type::F64, 2, Round::Rz), {a, a}) == 0x3ff0000000000002ull);
  CHECK(run(fop(Op::Mul, Type::F64, 2, Round::Rm), {a, a}) == 0x3ff0000000000002ull);
  CHECK(run(fop(Op::Mul, Type::F64, 2, Round::Rp), {a, a}) == 0x3ff0000000000003ull);
  CHECK(run(fop(Op::Div, Type::F64, 2, Round::Rn), {db(1), db(3)}) == 0x3fd5555555555555ull);
  CHECK(run(fop(Op::Div, Type::F64, 2, Round::Rz), {db(1), db(3)}) == 0x3fd5555555555555ull);
  CHECK(run(fop(Op::Div, Type::F64, 2, Round::Rp), {db(1), db(3)}) == 0x3fd5555555555556ull);
  CHECK(run(fop(Op::Div, Type::F64, 2, Round::Rm), {db(-1), db(3)}) == 0xbfd5555555555556ull);
  CHECK(run(fop(Op::Sqrt, Type::F64, 1, Round::Rn), {db(2)}) == db(std::sqrt(2.0)));
  // sqrt(2) rounded to nearest is above the true value
  CHECK(run(fop(Op::Sqrt, Type::F64, 1, Round::Rp), {db(2)}) == db(std::sqrt(2.0)));
  CHECK(run(fop(Op::Sqrt, Type::F64, 1, Round::Rz), {db(2)}) == db(std::sqrt(2.0)) - 1);
  CHECK(run(fop(Op::Rcp, Type::F64, 1, Round::Rn), {db(3)}) == 0x3fd5555555555555ull);
  CHECK(run(fop(Op::Add, Type::F64, 2, Round::Rp), {db(1), db(1e-300)}) == 0x3ff0000000000001ull);
  CHECK(run(fop(Op::Add, Type::F64, 2, Round::Rm), {db(1), db(-1e-300)}) == 0x3fefffffffffffffull);
}

TEST_CASE("fma and mad.f32 are fused", "[semantics]") {
  const uint64_t a = 0x3f800001, b = 0x3f7fffff;  // (1 + 2^-23)(1 - 2^-24) = 1 + 2^-24 - 2^-47
  const uint64_t expect = fb(static_cast<float>(std::ldexp(1.0, -24) - std::ldexp(1.0, -47)));
  CHECK(run(fop(Op::Fma, Type::F32, 3, Round::Rn), {a, b, fb(-1)}) == expect);
  CHECK(run(fop(Op::Mad, Type::F32, 3), {a, b, fb(-1)}) == expect);
  CHECK(run(fop(Op::Mul, Type::F32, 2), {a, b}) == fb(1.0f));  // unfused product rounds to 1
  // directed fma: 1*1 + 2^-30 rounds up only under .rp
  CHECK(run(fop(Op::Fma, Type::F32, 3, Round::Rp), {fb(1), fb(1), fb(std::ldexp(1.0f, -30))}) == 0x3f800001u);
  CHECK(run(fop(Op::Fma, Type::F32, 3, Round::Rz), {fb(1), fb(1), fb(std::ldexp(1.0f, -30))}) == 0x3f800000u);
  const uint64_t a64 = db(1 + std::ldexp(1.0, -52)), b64 = db(1 - std::ldexp(1.0, -53));
  CHECK(bd(run(fop(Op::Fma, Type::F64, 3, Round::Rn), {a64, b64, db(-1)})) ==
        std::ldexp(1.0, -53) - std::ldexp(1.0, -105));
  CHECK(run(fop(Op::Fma, Type::F64, 3, Round::Rp), {db(1), db(1), db(1e-300)}) == 0x3ff0000000000001ull);
}

TEST_CASE(".ftz flushes subnormal inputs and results, keeping the sign", "[semantics]") {
  Instr add = fop(Op::Add, Type::F32, 2);
  CHECK(run(add, {1, 0}) == 1);  // subnormals preserved without .ftz
  add.mods.ftz = true;
  CHECK(run(add, {1, 0}) == 0);
  CHECK(run(add, {0x80000001, 0x80000000}) == 0x80000000u);
  Instr mul = fop(Op::Mul, Type::F32, 2);
  const uint64_t p63 = fb(std::ldexp(1.0f, -63)), p64 = fb(std::ldexp(1.0f, -64)), m64 = fb(-std::ldexp(1.0f, -64));
  CHECK(run(mul, {p64, p63}) == 0x00400000u);  // 2^-127
  mul.mods.ftz = true;
  CHECK(run(mul, {p64, p63}) == 0);
  CHECK(run(mul, {m64, p63}) == 0x80000000u);
  CHECK(run(mul, {p63, p63}) == 0x00800000u);  // 2^-126 is normal
  Instr fma = fop(Op::Fma, Type::F32, 3, Round::Rn);
  fma.mods.ftz = true;
  CHECK(run(fma, {p64, p63, 0}) == 0);
  CHECK(run(fma, {fb(1), fb(1), 1}) == fb(1));
  CHECK(run(fma, {fb(1), 1, fb(2)}) == fb(2));
  fma.mods.ftz = false;
  CHECK(run(fma, {p64, p63, 0}) == 0x00400000u);
  Instr sub = fop(Op::Sub, Type::F32, 2);
  sub.mods.ftz = true;
  CHECK(run(sub, {0x00800001, 0x00800000}) == 0);  // 2^-149 result flushed
  sub.mods.ftz = false;
  CHECK(run(sub, {0x00800001, 0x00800000}) == 1);
  Instr neg = fop(Op::Neg, Type::F32, 1);
  neg.mods.ftz = true;
  CHECK(run(neg, {1}) == 0x80000000u);
}

TEST_CASE(".sat clamps float results to [0, 1], NaN to +0", "[semantics]") {
  Instr add = fop(Op::Add, Type::F32, 2);
  add.mods.sat = true;
  CHECK(run(add, {fb(1.0f), fb(0.5f)}) == fb(1.0f));
  CHECK(run(add, {fb(-1.0f), fb(-1.0f)}) == 0);
  CHECK(run(add, {fb(0.25f), fb(0.5f)}) == fb(0.75f));
  CHECK(run(add, {0x7fc00000, fb(1.0f)}) == 0);
  CHECK(run(add, {fb(-0.0f), fb(-0.0f)}) == 0);
  Instr fma = fop(Op::Fma, Type::F32, 3, Round::Rn);
  fma.mods.sat = true;
  CHECK(run(fma, {fb(2), fb(2), fb(-3.5f)}) == fb(0.5f));
  CHECK(run(fma, {fb(2), fb(2), fb(1)}) == fb(1.0f));
}

TEST_CASE("float NaN results are canonical", "[semantics]") {
  CHECK(run(fop(Op::Add, Type::F32, 2), {0x7fc00001, fb(1)}) == 0x7fffffffu);
  CHECK(run(fop(Op::Sub, Type::F32, 2), {0x7f800000, 0x7f800000}) == 0x7fffffffu);
  CHECK(run(fop(Op::Mul, Type::F32, 2, Round::Rz), {0x7f800000, 0}) == 0x7fffffffu);
  CHECK(run(fop(Op::Sqrt, Type::F32, 1, Round::Rn), {fb(-1)}) == 0x7fffffffu);
  CHECK(run(fop(Op::Add, Type::F64, 2), {db(NAN), db(1)}) == 0x7fffffffffffffffull);
  CHECK(run(fop(Op::Div, Type::F32, 2, Round::Rn), {0, 0}) == 0x7fffffffu);
}

TEST_CASE("float min/max return the non-NaN operand, -0 < +0", "[semantics]") {
  const uint64_t nan = 0x7fc00000;
  CHECK(run(fop(Op::Min, Type::F32, 2), {nan, fb(1)}) == fb(1));
  CHECK(run(fop(Op::Max, Type::F32, 2), {fb(1), nan}) == fb(1));
  CHECK(run(fop(Op::Min, Type::F32, 2), {nan, 0xffc00001}) == 0x7fffffffu);
  CHECK(run(fop(Op::Min, Type::F32, 2), {fb(0.0f), fb(-0.0f)}) == fb(-0.0f));
  CHECK(run(fop(Op::Max, Type::F32, 2), {fb(-0.0f), fb(0.0f)}) == fb(0.0f));
  CHECK(run(fop(Op::Min, Type::F32, 2), {fb(-2), fb(1)}) == fb(-2));
  CHECK(run(fop(Op::Max, Type::F32, 2), {fb(-2), fb(1)}) == fb(1));
  CHECK(run(fop(Op::Max, Type::F32, 2), {0xff800000, fb(-1e30f)}) == fb(-1e30f));
  Instr mnz = fop(Op::Min, Type::F32, 2);
  mnz.mods.ftz = true;
  CHECK(run(mnz, {0x80000001, 0}) == 0x80000000u);
  CHECK(run(fop(Op::Min, Type::F64, 2), {db(NAN), db(3)}) == db(3));
  CHECK(run(fop(Op::Max, Type::F64, 2), {db(2), db(3)}) == db(3));
  CHECK(run(fop(Op::Min, Type::F64, 2), {db(0.0), db(-0.0)}) == db(-0.0));
  CHECK(run(fop(Op::Max, Type::F64, 2), {db(NAN), db(NAN)}) == 0x7fffffffffffffffull);
}

TEST_CASE("abs, neg and copysign work on the sign bit", "[semantics]") {
  CHECK(run(fop(Op::Neg, Type::F32, 1), {fb(0.0f)}) == 0x80000000u);
  CHECK(run(fop(Op::Abs, Type::F32, 1), {fb(-0.0f)}) == 0);
  CHECK(run(fop(Op::Abs, Type::F32, 1), {0xffc00000}) == 0x7fc00000u);
  CHECK(run(fop(Op::Abs, Type::F32, 1), {1}) == 1);
  CHECK(run(fop(Op::Neg, Type::F64, 1), {db(2.5)}) == db(-2.5));
  CHECK(run(fop(Op::Abs, Type::F64, 1), {db(-2.5)}) == db(2.5));
  CHECK(run(fop(Op::Copysign, Type::F32, 2), {fb(-1), fb(2)}) == fb(-2));
  CHECK(run(fop(Op::Copysign, Type::F32, 2), {fb(1), fb(-2)}) == fb(2));
  CHECK(run(fop(Op::Copysign, Type::F64, 2), {db(-0.0), db(3)}) == db(-3));
}

TEST_CASE("div, rcp and sqrt in every f32 flavour", "[semantics]") {
  CHECK(run(fop(Op::Div, Type::F32, 2, Round::Rn), {fb(1), fb(3)}) == 0x3eaaaaabu);
  CHECK(run(fop(Op::Div, Type::F32, 2, Round::Rz), {fb(1), fb(3)}) == 0x3eaaaaaau);
  CHECK(run(fop(Op::Div, Type::F32, 2, Round::Rm), {fb(1), fb(3)}) == 0x3eaaaaaau);
  CHECK(run(fop(Op::Div, Type::F32, 2, Round::Rp), {fb(1), fb(3)}) == 0x3eaaaaabu);
  Instr ap = fop(Op::Div, Type::F32, 2);
  ap.mods.approx = true;
  CHECK(run(ap, {fb(1), fb(3)}) == 0x3eaaaaabu);
  CHECK(run(ap, {fb(1), 0}) == 0x7f800000u);
  Instr full = fop(Op::Div, Type::F32, 2);
  full.mods.full = true;
  full.mods.ftz = true;
  CHECK(run(full, {fb(6), fb(3)}) == fb(2));
  CHECK(run(full, {1, fb(3)}) == 0);
  CHECK(run(fop(Op::Rcp, Type::F32, 1, Round::Rn), {fb(3)}) == 0x3eaaaaabu);
  CHECK(run(fop(Op::Rcp, Type::F32, 1, Round::Rz), {fb(3)}) == 0x3eaaaaaau);
  CHECK(run(fop(Op::Rcp, Type::F32, 1, Round::Rn), {fb(-0.0f)}) == 0xff800000u);
  Instr rcpa = fop(Op::Rcp, Type::F32, 1);
  rcpa.mods.approx = true;
  CHECK(run(rcpa, {fb(4)}) == fb(0.25f));
  CHECK(run(fop(Op::Sqrt, Type::F32, 1, Round::Rn), {fb(2)}) == 0x3fb504f3u);
  CHECK(run(fop(Op::Sqrt, Type::F32, 1, Round::Rz), {fb(2)}) == 0x3fb504f3u);
  CHECK(run(fop(Op::Sqrt, Type::F32, 1, Round::Rp), {fb(2)}) == 0x3fb504f4u);
  CHECK(run(fop(Op::Sqrt, Type::F32, 1, Round::Rn), {fb(-0.0f)}) == fb(-0.0f));
  Instr sqa = fop(Op::Sqrt, Type::F32, 1);
  sqa.mods.approx = true;
  CHECK(run(sqa, {fb(16)}) == fb(4));
  Instr r64 = fop(Op::Rcp, Type::F64, 1);
  r64.mods.approx = true;
  r64.mods.ftz = true;
  CHECK(run(r64, {db(4)}) == db(0.25));
  // round-to-nearest results match the host bit for bit
  Gen g;
  for (int i = 0; i < 5000; ++i) {
    const float a = g.f(), b = g.f();
    REQUIRE(run(fop(Op::Div, Type::F32, 2, Round::Rn), {fb(a), fb(b)}) == fb(a / b));
    REQUIRE(run(fop(Op::Sqrt, Type::F32, 1, Round::Rn), {fb(std::fabs(a))}) == fb(std::sqrt(std::fabs(a))));
    REQUIRE(run(fop(Op::Fma, Type::F32, 3, Round::Rn), {fb(a), fb(b), fb(a)}) == fb(std::fma(a, b, a)));
  }
}

TEST_CASE("approximate transcendental functions", "[semantics]") {
  auto ap = [](Op op, Type t = Type::F32) {
    Instr in = mk(op, t, 1);
    in.mods.approx = true;
    return in;
  };
  CHECK(run(ap(Op::Ex2), {fb(3)}) == fb(8));
  CHECK(run(ap(Op::Ex2), {0xff800000}) == 0);
  CHECK(run(ap(Op::Ex2), {fb(-0.5f)}) == fb(static_cast<float>(std::exp2(-0.5))));
  CHECK(run(ap(Op::Lg2), {fb(8)}) == fb(3));
  CHECK(run(ap(Op::Lg2), {0}) == 0xff800000u);
  CHECK(run(ap(Op::Lg2), {fb(-1)}) == 0x7fffffffu);
  CHECK(run(ap(Op::Sin), {0}) == 0);
  CHECK(run(ap(Op::Cos), {0}) == fb(1));
  CHECK(run(ap(Op::Sin), {0x7f800000}) == 0x7fffffffu);
  CHECK(std::fabs(bf(run(ap(Op::Sin), {fb(1)})) - std::sin(1.0)) < 1e-7);
  CHECK(std::fabs(bf(run(ap(Op::Cos), {fb(2)})) - std::cos(2.0)) < 1e-7);
  CHECK(run(ap(Op::Tanh), {fb(0)}) == 0);
  CHECK(run(ap(Op::Tanh), {0x7f800000}) == fb(1));
  CHECK(run(ap(Op::Tanh), {0xff800000}) == fb(-1));
  CHECK(run(ap(Op::Rsqrt), {fb(4)}) == fb(0.5f));
  CHECK(run(ap(Op::Rsqrt), {0}) == 0x7f800000u);
  CHECK(run(ap(Op::Rsqrt, Type::F64), {db(0.25)}) == db(2));
  Instr ftz = ap(Op::Ex2);
  ftz.mods.ftz = true;
  CHECK(run(ftz, {fb(-130)}) == 0);  // 2^-130 is subnormal: flushed
  CHECK(run(ap(Op::Ex2), {fb(-130)}) == fb(std::ldexp(1.0f, -130)));
}

TEST_CASE("half precision arithmetic (f16, f16x2, bf16)", "[semantics]") {
  CHECK(run(fop(Op::Add, Type::F16, 2), {0x3c00, 0x3c00}) == 0x4000);
  CHECK(run(fop(Op::Add, Type::F16x2, 2), {0x3c004000, 0x3c003c00}) == 0x40004200u);
  CHECK(run(fop(Op::Add, Type::F16, 2), {0x7bff, 0x7bff}) == 0x7c00);  // 65504 + 65504 = inf
  CHECK(run(fop(Op::Sub, Type::F16, 2), {0x3c00, 0x3c00}) == 0);
  CHECK(run(fop(Op::Mul, Type::F16, 2, Round::Rn), {0x3c01, 0x3c01}) == 0x3c02);
  CHECK(run(fop(Op::Mul, Type::F16, 2, Round::Rz), {0x3c01, 0x3c01}) == 0x3c02);
  CHECK(run(fop(Op::Mul, Type::F16, 2, Round::Rp), {0x3c01, 0x3c01}) == 0x3c03);
  // fused: (1 + 2^-10)(1 - 2^-11) - 1 = 2^-11 - 2^-21
  CHECK(run(fop(Op::Fma, Type::F16, 3, Round::Rn), {0x3c01, 0x3bff, 0xbc00}) == 0x0ffe);
  CHECK(run(fop(Op::Mul, Type::F16, 2, Round::Rn), {0x3c01, 0x3bff}) == 0x3c00);  // unfused product rounds to 1
  CHECK(run(fop(Op::Add, Type::BF16, 2), {0x3f80, 0x3f80}) == 0x4000);
  CHECK(run(fop(Op::Mul, Type::BF16x2, 2), {0x40004040, 0x3f804000}) == 0x400040c0u);
  CHECK(run(fop(Op::Neg, Type::F16, 1), {0x3c00}) == 0xbc00);
  CHECK(run(fop(Op::Abs, Type::F16x2, 1), {0xbc00bc00}) == 0x3c003c00u);
  CHECK(run(fop(Op::Min, Type::F16, 2), {0x7e00, 0x3c00}) == 0x3c00);
  CHECK(run(fop(Op::Max, Type::F16, 2), {0xbc00, 0x3c00}) == 0x3c00);
  Instr sat = fop(Op::Add, Type::F16, 2);
  sat.mods.sat = true;
  CHECK(run(sat, {0x3c00, 0x3c00}) == 0x3c00);
  CHECK(run(sat, {0xbc00, 0x3800}) == 0);
  Instr ftz = fop(Op::Add, Type::F16, 2);
  ftz.mods.ftz = true;
  CHECK(run(ftz, {0x0001, 0x0000}) == 0);
  CHECK(run(fop(Op::Add, Type::F16, 2), {0x0001, 0x0000}) == 1);
}

TEST_CASE("testp.number and testp.notanumber", "[semantics]") {
  Instr num = mk(Op::Testp, Type::F32, 1);
  num.mods.cmp = Cmp::Num;
  CHECK(run(num, {fb(1)}) == 1);
  CHECK(run(num, {0x7f800000}) == 1);
  CHECK(run(num, {0x7f800001}) == 0);
  CHECK(run(num, {0xffc00000}) == 0);
  Instr nan = mk(Op::Testp, Type::F64, 1);
  nan.mods.cmp = Cmp::Nan;
  CHECK(run(nan, {db(NAN)}) == 1);
  CHECK(run(nan, {db(-INFINITY)}) == 0);
  CHECK(run(nan, {1}) == 0);
}

#ifdef __FLT16_MANT_DIG__
// The host's _Float16 (GCC/Clang on x86-64) is an independent oracle for
// round-to-nearest f16: conversions are correctly rounded, and f16 add/mul
// computed in f32 then rounded are too (24 >= 2 * 11 + 2: double rounding is
// innocuous).
TEST_CASE("f16 against the host's _Float16", "[semantics]") {
  auto h2b = [](_Float16 h) {
    uint16_t u;
    std::memcpy(&u, &h, 2);
    return static_cast<uint64_t>(u);
  };
  auto b2h = [](uint64_t b) {
    uint16_t u = static_cast<uint16_t>(b);
    _Float16 h;
    std::memcpy(&h, &u, 2);
    return h;
  };
  Instr c = mk(Op::Cvt, Type::F16, 1, Type::F32);
  c.mods.round = Round::Rn;
  Gen g;
  for (int i = 0; i < 100000; ++i) {
    uint32_t r = g.next();
    // exponents around the f16 range, subnormals and overflow included
    const uint32_t e = 127 - 30 + (r % 50);
    const float f = bf((r & 0x80000000u) | (e << 23) | (g.next() & 0x7fffff));
    INFO(f);
    REQUIRE(run(c, {fb(f)}) == h2b(static_cast<_Float16>(f)));
  }
  for (int i = 0; i < 100000; ++i) {
    uint64_t a = g.next() & 0xffff, b = g.next() & 0xffff;
    if ((a & 0x7c00) == 0x7c00 || (b & 0x7c00) == 0x7c00) continue;  // NaN payloads differ
    const _Float16 x = b2h(a), y = b2h(b);
    REQUIRE(run(fop(Op::Add, Type::F16, 2), {a, b}) == h2b(static_cast<_Float16>(x + y)));
    REQUIRE(run(fop(Op::Mul, Type::F16, 2), {a, b}) == h2b(static_cast<_Float16>(x * y)));
  }
}
#endif
