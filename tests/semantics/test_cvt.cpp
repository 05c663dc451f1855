// cvt (PTX ISA 9.0, 9.7.9.21): integer widening/narrowing/saturation, float
// to integer with integer rounding and clamping, integer to float with
// rounding, float to float with rounding, f16/bf16.
#include <cmath>
#include <limits>

#include "sem_helpers.h"

using namespace semtest;

namespace {

Instr cvt(Type dt, Type st, Round r = Round::None, bool sat = false, bool ftz = false) {
  Instr in = mk(Op::Cvt, dt, 1, st);
  in.mods.round = r;
  in.mods.sat = sat;
  in.mods.ftz = ftz;
  return in;
}

}  // namespace

TEST_CASE("cvt integer to integer: extension and truncation", "[semantics]") {
  CHECK(run(cvt(Type::U32, Type::U16), {0xffff}) == 0xffff);
  CHECK(run(cvt(Type::S32, Type::S16), {0x8000}) == 0xffff8000u);
  CHECK(run(cvt(Type::U32, Type::S16), {0x8000}) == 0xffff8000u);  // extension follows the source
  CHECK(run(cvt(Type::U16, Type::U32), {0x12345}) == 0x2345);
  CHECK(run(cvt(Type::S64, Type::S32), {0xffffffff}) == ~0ull);
  CHECK(run(cvt(Type::U64, Type::S32), {0xffffffff}) == ~0ull);
  CHECK(run(cvt(Type::S64, Type::U32), {0xffffffff}) == 0xffffffffu);
  CHECK(run(cvt(Type::U32, Type::U64), {0x123456789ull}) == 0x23456789u);
  CHECK(run(cvt(Type::S32, Type::S8), {0x80}) == 0xffffff80u);
  CHECK(run(cvt(Type::U32, Type::U8), {0x1ff}) == 0xff);
  // 8-bit destinations are extended to 64 bits (see semantics.h)
  CHECK(run(cvt(Type::S8, Type::S32), {0x1ff}) == ~0ull);
  CHECK(run(cvt(Type::U8, Type::S32), {0x1ff}) == 0xff);
}

TEST_CASE("cvt.sat integer narrowing clamps", "[semantics]") {
  CHECK(run(cvt(Type::S8, Type::S32, Round::None, true), {300}) == 0x7f);
  CHECK(run(cvt(Type::S8, Type::S32, Round::None, true), {u32(-300)}) == u64(-128));
  CHECK(run(cvt(Type::U8, Type::S32, Round::None, true), {u32(-1)}) == 0);
  CHECK(run(cvt(Type::U16, Type::S32, Round::None, true), {u32(-5)}) == 0);
  CHECK(run(cvt(Type::U16, Type::U32, Round::None, true), {70000}) == 0xffff);
  CHECK(run(cvt(Type::S16, Type::S32, Round::None, true), {40000}) == 0x7fff);
  CHECK(run(cvt(Type::U32, Type::S64, Round::None, true), {1ull << 40}) == 0xffffffffu);
  CHECK(run(cvt(Type::S32, Type::U32, Round::None, true), {0x80000000}) == 0x7fffffffu);
  CHECK(run(cvt(Type::S32, Type::S64, Round::None, true), {u64(-(1ll << 40))}) == 0x80000000u);
  CHECK(run(cvt(Type::U64, Type::S64, Round::None, true), {u64(-1)}) == 0);
  CHECK(run(cvt(Type::S64, Type::U64, Round::None, true), {~0ull}) == 0x7fffffffffffffffull);
  CHECK(run(cvt(Type::U32, Type::S32, Round::None, true), {u32(-7)}) == 0);
  CHECK(run(cvt(Type::U32, Type::S32, Round::None, true), {7}) == 7);
}

TEST_CASE("cvt float to integer: rounding, clamping, NaN -> 0", "[semantics]") {
  CHECK(run(cvt(Type::S32, Type::F32, Round::Rni), {fb(2.5f)}) == 2);
  CHECK(run(cvt(Type::S32, Type::F32, Round::Rni), {fb(3.5f)}) == 4);
  CHECK(run(cvt(Type::S32, Type::F32, Round::Rni), {fb(-2.5f)}) == u32(-2));
  CHECK(run(cvt(Type::S32, Type::F32, Round::Rzi), {fb(-2.7f)}) == u32(-2));
  CHECK(run(cvt(Type::S32, Type::F32, Round::Rmi), {fb(-2.1f)}) == u32(-3));
  CHECK(run(cvt(Type::S32, Type::F32, Round::Rpi), {fb(2.1f)}) == 3);
  CHECK(run(cvt(Type::S32, Type::F32, Round::Rzi), {0x7fc00000}) == 0);
  CHECK(run(cvt(Type::U32, Type::F32, Round::Rzi), {0xffc00000}) == 0);
  CHECK(run(cvt(Type::S32, Type::F32, Round::Rzi), {fb(1e10f)}) == 0x7fffffffu);
  CHECK(run(cvt(Type::S32, Type::F32, Round::Rzi), {fb(-1e10f)}) == 0x80000000u);
  CHECK(run(cvt(Type::S32, Type::F32, Round::Rzi), {0x7f800000}) == 0x7fffffffu);
  CHECK(run(cvt(Type::U32, Type::F32, Round::Rzi), {fb(-1.0f)}) == 0);
  CHECK(run(cvt(Type::U32, Type::F32, Round::Rzi), {fb(-0.5f)}) == 0);
  CHECK(run(cvt(Type::U32, Type::F32, Round::Rzi), {fb(5e9f)}) == 0xffffffffu);
  CHECK(run(cvt(Type::U32, Type::F32, Round::Rni), {fb(4294967040.0f)}) == 4294967040u);
  CHECK(run(cvt(Type::S64, Type::F64, Round::Rzi), {db(1e19)}) == 0x7fffffffffffffffull);
  CHECK(run(cvt(Type::S64, Type::F64, Round::Rzi), {db(-1e19)}) == 0x8000000000000000ull);
  CHECK(run(cvt(Type::S64, Type::F64, Round::Rzi), {db(-9223372036854775808.0)}) == 0x8000000000000000ull);
  CHECK(run(cvt(Type::U64, Type::F64, Round::Rzi), {db(2e19)}) == ~0ull);
  CHECK(run(cvt(Type::U64, Type::F64, Round::Rzi), {db(-INFINITY)}) == 0);
  CHECK(run(cvt(Type::U64, Type::F64, Round::Rzi), {db(1e19)}) == 10000000000000000000ull);
  CHECK(run(cvt(Type::S32, Type::F64, Round::Rni), {db(2147483647.5)}) == 0x7fffffffu);
  CHECK(run(cvt(Type::S32, Type::F64, Round::Rni), {db(-2147483648.4)}) == 0x80000000u);
  CHECK(run(cvt(Type::S8, Type::F32, Round::Rzi), {fb(200.0f)}) == 0x7f);
  CHECK(run(cvt(Type::S8, Type::F32, Round::Rzi), {fb(-200.0f)}) == u64(-128));
  CHECK(run(cvt(Type::U8, Type::F32, Round::Rzi), {fb(-3.0f)}) == 0);
  CHECK(run(cvt(Type::S16, Type::F32, Round::Rni), {fb(-40000.0f)}) == 0x8000);
  CHECK(run(cvt(Type::U16, Type::F16, Round::Rni), {0x3c00}) == 1);
  CHECK(run(cvt(Type::S32, Type::F16, Round::Rzi), {0xfc00}) == 0x80000000u);
  // a positive subnormal rounds up to 1 unless .ftz flushes it first
  CHECK(run(cvt(Type::S32, Type::F32, Round::Rpi), {1}) == 1);
  CHECK(run(cvt(Type::S32, Type::F32, Round::Rpi, false, true), {1}) == 0);
}

TEST_CASE("cvt integer to float: rounding modes", "[semantics]") {
  CHECK(run(cvt(Type::F32, Type::S32, Round::Rn), {16777217}) == 0x4b800000u);
  CHECK(run(cvt(Type::F32, Type::S32, Round::Rz), {16777217}) == 0x4b800000u);
  CHECK(run(cvt(Type::F32, Type::S32, Round::Rp), {16777217}) == 0x4b800001u);
  CHECK(run(cvt(Type::F32, Type::S32, Round::Rm), {u32(-16777217)}) == 0xcb800001u);
  CHECK(run(cvt(Type::F32, Type::S32, Round::Rp), {u32(-16777217)}) == 0xcb800000u);
  CHECK(run(cvt(Type::F32, Type::U32, Round::Rn), {0xffffffff}) == 0x4f800000u);
  CHECK(run(cvt(Type::F32, Type::U32, Round::Rz), {0xffffffff}) == 0x4f7fffffu);
  CHECK(run(cvt(Type::F32, Type::S32, Round::Rn), {u32(-1)}) == fb(-1.0f));
  CHECK(run(cvt(Type::F32, Type::S8, Round::Rn), {0xff}) == fb(-1.0f));
  CHECK(run(cvt(Type::F64, Type::S64, Round::Rn), {(1ull << 53) + 1}) == 0x4340000000000000ull);
  CHECK(run(cvt(Type::F64, Type::S64, Round::Rp), {(1ull << 53) + 1}) == 0x4340000000000001ull);
  CHECK(run(cvt(Type::F64, Type::U64, Round::Rn), {~0ull}) == 0x43f0000000000000ull);
  CHECK(run(cvt(Type::F64, Type::U64, Round::Rz), {~0ull}) == 0x43efffffffffffffull);
  CHECK(run(cvt(Type::F32, Type::U64, Round::Rn), {~0ull}) == 0x5f800000u);
  CHECK(run(cvt(Type::F32, Type::U64, Round::Rz), {~0ull}) == 0x5f7fffffu);
  CHECK(run(cvt(Type::F32, Type::S64, Round::Rm), {u64(INT64_MIN) + 1}) == 0xdf000000u);
  CHECK(run(cvt(Type::F64, Type::S32, Round::Rn), {0x80000000}) == db(-2147483648.0));
  CHECK(run(cvt(Type::F16, Type::S32, Round::Rn), {2049}) == 0x6800);
  CHECK(run(cvt(Type::F16, Type::S32, Round::Rp), {2049}) == 0x6801);
  CHECK(run(cvt(Type::F16, Type::U32, Round::Rn), {70000}) == 0x7c00);
  CHECK(run(cvt(Type::F16, Type::U32, Round::Rz), {70000}) == 0x7bff);
  CHECK(run(cvt(Type::F16, Type::S64, Round::Rm), {u64(-70000)}) == 0xfc00);
  CHECK(run(cvt(Type::BF16, Type::U64, Round::Rn), {(1ull << 63) + (1ull << 55)}) == 0x5f00);  // tie -> even
  CHECK(run(cvt(Type::BF16, Type::U64, Round::Rn), {(1ull << 63) + (1ull << 55) + 1}) == 0x5f01);
  CHECK(run(cvt(Type::F32, Type::S32, Round::Rn, true), {5}) == fb(1.0f));
  CHECK(run(cvt(Type::F32, Type::S32, Round::Rn, true), {u32(-5)}) == 0);
}

TEST_CASE("cvt float to float: widening, narrowing with rounding, .ftz, .sat", "[semantics]") {
  CHECK(run(cvt(Type::F64, Type::F32), {fb(1.5f)}) == db(1.5));
  CHECK(run(cvt(Type::F64, Type::F32), {1}) == db(std::ldexp(1.0, -149)));
  CHECK(run(cvt(Type::F64, Type::F32, Round::None, false, true), {1}) == 0);
  CHECK(run(cvt(Type::F64, Type::F32), {0xffc00001}) == 0x7fffffffffffffffull);
  const uint64_t above = db(1 + std::ldexp(1.0, -24) + std::ldexp(1.0, -50));
  const uint64_t tie = db(1 + std::ldexp(1.0, -24));
  CHECK(run(cvt(Type::F32, Type::F64, Round::Rn), {above}) == 0x3f800001u);
  CHECK(run(cvt(Type::F32, Type::F64, Round::Rz), {above}) == 0x3f800000u);
  CHECK(run(cvt(Type::F32, Type::F64, Round::Rn), {tie}) == 0x3f800000u);
  CHECK(run(cvt(Type::F32, Type::F64, Round::Rp), {tie}) == 0x3f800001u);
  CHECK(run(cvt(Type::F32, Type::F64, Round::Rm), {db(-1 - std::ldexp(1.0, -30))}) == 0xbf800001u);
  CHECK(run(cvt(Type::F32, Type::F64, Round::Rp), {db(-1 - std::ldexp(1.0, -30))}) == 0xbf800000u);
  CHECK(run(cvt(Type::F32, Type::F64, Round::Rn), {db(1e300)}) == 0x7f800000u);
  CHECK(run(cvt(Type::F32, Type::F64, Round::Rz), {db(1e300)}) == 0x7f7fffffu);
  CHECK(run(cvt(Type::F32, Type::F64, Round::Rn), {db(1e-40)}) == fb(1e-40f));
  CHECK(run(cvt(Type::F32, Type::F64, Round::Rn, false, true), {db(1e-40)}) == 0);
  CHECK(run(cvt(Type::F32, Type::F64, Round::Rn, false, true), {db(-1e-40)}) == 0x80000000u);
  CHECK(run(cvt(Type::F32, Type::F64, Round::Rn, true), {db(2.0)}) == fb(1.0f));
  CHECK(run(cvt(Type::F32, Type::F64, Round::Rn, true), {db(NAN)}) == 0);
  CHECK(run(cvt(Type::F32, Type::F64, Round::Rn), {db(NAN)}) == 0x7fffffffu);
  // same-type integer rounding
  CHECK(run(cvt(Type::F32, Type::F32, Round::Rni), {fb(2.5f)}) == fb(2.0f));
  CHECK(run(cvt(Type::F32, Type::F32, Round::Rzi), {fb(-2.7f)}) == fb(-2.0f));
  CHECK(run(cvt(Type::F32, Type::F32, Round::Rmi), {fb(2.7f)}) == fb(2.0f));
  CHECK(run(cvt(Type::F32, Type::F32, Round::Rpi), {fb(2.1f)}) == fb(3.0f));
  CHECK(run(cvt(Type::F32, Type::F32, Round::Rni), {fb(-0.3f)}) == 0x80000000u);
  CHECK(run(cvt(Type::F64, Type::F64, Round::Rni), {db(0.5)}) == 0);
  CHECK(run(cvt(Type::F64, Type::F64, Round::Rpi), {db(-0.5)}) == db(-0.0));
  CHECK(run(cvt(Type::F32, Type::F32, Round::None, false, true), {0x80000001}) == 0x80000000u);
  CHECK(run(cvt(Type::F32, Type::F32, Round::None, true), {fb(2.0f)}) == fb(1.0f));
  CHECK(run(cvt(Type::F32, Type::F32, Round::None, true), {fb(-2.0f)}) == 0);
}

TEST_CASE("cvt to and from f16 and bf16", "[semantics]") {
  CHECK(run(cvt(Type::F16, Type::F32, Round::Rn), {fb(1.0f)}) == 0x3c00);
  CHECK(run(cvt(Type::F16, Type::F32, Round::Rn), {fb(65504.0f)}) == 0x7bff);
  CHECK(run(cvt(Type::F16, Type::F32, Round::Rn), {fb(65519.0f)}) == 0x7bff);
  CHECK(run(cvt(Type::F16, Type::F32, Round::Rn), {fb(65520.0f)}) == 0x7c00);  // tie rounds to inf
  CHECK(run(cvt(Type::F16, Type::F32, Round::Rz), {fb(1e6f)}) == 0x7bff);
  CHECK(run(cvt(Type::F16, Type::F32, Round::Rm), {fb(1e6f)}) == 0x7bff);
  CHECK(run(cvt(Type::F16, Type::F32, Round::Rm), {fb(-1e6f)}) == 0xfc00);
  CHECK(run(cvt(Type::F16, Type::F32, Round::Rn), {fb(std::ldexp(1.0f, -24))}) == 0x0001);
  CHECK(run(cvt(Type::F16, Type::F32, Round::Rn), {fb(std::ldexp(1.0f, -25))}) == 0);  // tie to even
  CHECK(run(cvt(Type::F16, Type::F32, Round::Rn), {fb(std::ldexp(1.5f, -25))}) == 0x0001);
  CHECK(run(cvt(Type::F16, Type::F32, Round::Rp), {fb(std::ldexp(1.0f, -30))}) == 0x0001);
  CHECK(run(cvt(Type::F16, Type::F32, Round::Rm), {fb(-std::ldexp(1.0f, -30))}) == 0x8001);
  CHECK(run(cvt(Type::F16, Type::F32, Round::Rz), {fb(-std::ldexp(1.0f, -30))}) == 0x8000);
  CHECK(run(cvt(Type::F16, Type::F32, Round::Rn), {fb(std::ldexp(1.0f, -14))}) == 0x0400);  // min normal
  CHECK(run(cvt(Type::F16, Type::F32, Round::Rn), {fb(std::ldexp(1023.5f, -24))}) == 0x0400);  // rounds up into normal
  CHECK(run(cvt(Type::F16, Type::F32, Round::Rn), {0x7fc00000}) == 0x7fff);
  CHECK(run(cvt(Type::F16, Type::F32, Round::Rn), {fb(-0.0f)}) == 0x8000);
  CHECK(run(cvt(Type::F16, Type::F32, Round::Rn), {0xff800000}) == 0xfc00);
  CHECK(run(cvt(Type::F16, Type::F32, Round::Rn), {fb(1.0f + std::ldexp(1.0f, -11))}) == 0x3c00);
  CHECK(run(cvt(Type::F16, Type::F32, Round::Rn), {fb(1.0f + std::ldexp(3.0f, -11))}) == 0x3c02);
  CHECK(run(cvt(Type::F16, Type::F32, Round::Rn), {fb(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20))}) ==
        0x3c01);
  CHECK(run(cvt(Type::F16, Type::F64, Round::Rn), {db(1.0 / 3)}) == 0x3555);
  CHECK(run(cvt(Type::F16, Type::F32, Round::Rn, true), {fb(3.0f)}) == 0x3c00);
  CHECK(run(cvt(Type::F32, Type::F16), {0x3c00}) == fb(1.0f));
  CHECK(run(cvt(Type::F32, Type::F16), {0x0001}) == 0x33800000u);
  CHECK(run(cvt(Type::F32, Type::F16), {0x7c00}) == 0x7f800000u);
  CHECK(run(cvt(Type::F32, Type::F16), {0xfc00}) == 0xff800000u);
  CHECK(run(cvt(Type::F32, Type::F16), {0x7e00}) == 0x7fffffffu);
  CHECK(run(cvt(Type::F32, Type::F16), {0x7bff}) == fb(65504.0f));
  CHECK(run(cvt(Type::F32, Type::F16), {0x8000}) == 0x80000000u);
  CHECK(run(cvt(Type::F64, Type::F16), {0x3555}) == db(0.333251953125));
  CHECK(run(cvt(Type::BF16, Type::F32, Round::Rn), {0x3f808000}) == 0x3f80);
  CHECK(run(cvt(Type::BF16, Type::F32, Round::Rn), {0x3f818000}) == 0x3f82);
  CHECK(run(cvt(Type::BF16, Type::F32, Round::Rz), {0x3f81ffff}) == 0x3f81);
  CHECK(run(cvt(Type::BF16, Type::F32, Round::Rn), {0x7f7fffff}) == 0x7f80);
  CHECK(run(cvt(Type::F32, Type::BF16), {0x3f80}) == 0x3f800000u);
  CHECK(run(cvt(Type::F32, Type::BF16), {0xc049}) == 0xc0490000u);
  Instr pk = cvt(Type::F16x2, Type::F32, Round::Rn);
  pk.nsrc = 2;
  pk.src[1].kind = OperandKind::Reg;
  CHECK(run(pk, {fb(1.0f), fb(2.0f)}) == 0x3c004000u);  // a -> upper half, b -> lower half
  CHECK(run(pk, {fb(65520.0f), fb(-0.0f)}) == 0x7c008000u);
  pk.mods.round = Round::Rz;
  CHECK(run(pk, {fb(65520.0f), fb(1.0f + std::ldexp(1.0f, -11))}) == 0x7bff3c00u);
  Instr pkb = cvt(Type::BF16x2, Type::F32, Round::Rn);
  pkb.nsrc = 2;
  pkb.src[1].kind = OperandKind::Reg;
  CHECK(run(pkb, {0x3f818000, 0x3f808000}) == 0x3f823f80u);
  // every f16 value converts to f32 and back unchanged
  for (uint64_t h = 0; h < 0x10000; ++h) {
    const uint64_t f = run(cvt(Type::F32, Type::F16), {h});
    const uint64_t back = run(cvt(Type::F16, Type::F32, Round::Rn), {f});
    const bool isNan = (h & 0x7c00) == 0x7c00 && (h & 0x3ff);
    REQUIRE(back == (isNan ? 0x7fff : h));
  }
}
