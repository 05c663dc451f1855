// Integer arithmetic (PTX ISA 9.0, 9.7.1): known answers and edge cases.
#include "sem_helpers.h"

using namespace semtest;

TEST_CASE("add/sub wrap around at every width", "[semantics]") {
  CHECK(run(mk(Op::Add, Type::S32, 2), {0x7fffffff, 1}) == 0x80000000u);
  CHECK(run(mk(Op::Add, Type::U32, 2), {0xffffffff, 2}) == 1);
  CHECK(run(mk(Op::Add, Type::U16, 2), {0xffff, 1}) == 0);
  CHECK(run(mk(Op::Add, Type::S16, 2), {u16(-1), u16(-1)}) == 0xfffe);
  CHECK(run(mk(Op::Add, Type::U64, 2), {~0ull, 1}) == 0);
  CHECK(run(mk(Op::Sub, Type::S32, 2), {0, 1}) == 0xffffffffu);
  CHECK(run(mk(Op::Sub, Type::U64, 2), {0, 1}) == ~0ull);
  // immediates may arrive sign-extended to 64 bits
  CHECK(run(mk(Op::Add, Type::S32, 2), {5, u64(-1)}) == 4);
}

TEST_CASE("add.sat.s32 and sub.sat.s32 clamp", "[semantics]") {
  Instr a = mk(Op::Add, Type::S32, 2);
  a.mods.sat = true;
  CHECK(run(a, {0x7fffffff, 1}) == 0x7fffffffu);
  CHECK(run(a, {0x80000000, u32(-1)}) == 0x80000000u);
  CHECK(run(a, {u32(-5), 3}) == u32(-2));
  Instr s = mk(Op::Sub, Type::S32, 2);
  s.mods.sat = true;
  CHECK(run(s, {0x80000000, 1}) == 0x80000000u);
  CHECK(run(s, {0x7fffffff, u32(-1)}) == 0x7fffffffu);
}

TEST_CASE("mul .lo .hi .wide signed and unsigned", "[semantics]") {
  Instr lo = mk(Op::Mul, Type::S32, 2);
  lo.mods.mul = MulMode::Lo;
  CHECK(run(lo, {u32(-3), 7}) == u32(-21));
  CHECK(run(lo, {0x10000, 0x10000}) == 0);

  Instr hi = mk(Op::Mul, Type::S32, 2);
  hi.mods.mul = MulMode::Hi;
  CHECK(run(hi, {u32(-1), 1}) == 0xffffffffu);         // -1 * 1 = -1: high word all ones
  CHECK(run(hi, {0x80000000, 0x80000000}) == 0x40000000u);
  CHECK(run(hi, {0x10000, 0x10000}) == 1);
  Instr hiu = mk(Op::Mul, Type::U32, 2);
  hiu.mods.mul = MulMode::Hi;
  CHECK(run(hiu, {0xffffffff, 0xffffffff}) == 0xfffffffeu);
  CHECK(run(hiu, {0xffffffff, 2}) == 1);

  Instr hi64 = mk(Op::Mul, Type::S64, 2);
  hi64.mods.mul = MulMode::Hi;
  CHECK(run(hi64, {u64(-2), 3}) == ~0ull);
  CHECK(run(hi64, {u64(INT64_MIN), u64(INT64_MIN)}) == 0x4000000000000000ull);
  Instr hi64u = mk(Op::Mul, Type::U64, 2);
  hi64u.mods.mul = MulMode::Hi;
  CHECK(run(hi64u, {~0ull, ~0ull}) == 0xfffffffffffffffeull);

  Instr w = mk(Op::Mul, Type::S32, 2);
  w.mods.mul = MulMode::Wide;
  CHECK(run(w, {u32(-2), 3}) == u64(-6));
  CHECK(run(w, {0x80000000, 0x80000000}) == 0x4000000000000000ull);
  Instr wu = mk(Op::Mul, Type::U32, 2);
  wu.mods.mul = MulMode::Wide;
  CHECK(run(wu, {0xffffffff, 0xffffffff}) == 0xfffffffe00000001ull);
  Instr w16 = mk(Op::Mul, Type::S16, 2);
  w16.mods.mul = MulMode::Wide;
  CHECK(run(w16, {u16(-1), u16(-1)}) == 1);
  CHECK(run(w16, {u16(-300), 300}) == u32(-90000));
  Instr w16u = mk(Op::Mul, Type::U16, 2);
  w16u.mods.mul = MulMode::Wide;
  CHECK(run(w16u, {0xffff, 0xffff}) == 0xfffe0001u);

  Instr lo64 = mk(Op::Mul, Type::U64, 2);
  lo64.mods.mul = MulMode::Lo;
  CHECK(run(lo64, {0x100000001ull, 0x100000001ull}) == 0x200000001ull);
}

TEST_CASE("mad .lo .hi .wide and mad.hi.sat.s32", "[semantics]") {
  Instr lo = mk(Op::Mad, Type::S32, 3);
  lo.mods.mul = MulMode::Lo;
  CHECK(run(lo, {u32(-3), 7, 100}) == 79);
  Instr hi = mk(Op::Mad, Type::U32, 3);
  hi.mods.mul = MulMode::Hi;
  CHECK(run(hi, {0xffffffff, 0xffffffff, 5}) == 3);  // 0xfffffffe + 5 wraps
  CHECK(run(hi, {0xffffffff, 0xffffffff, 2}) == 0);  // wraps
  Instr hs = mk(Op::Mad, Type::S32, 3);
  hs.mods.mul = MulMode::Hi;
  hs.mods.sat = true;
  CHECK(run(hs, {0x7fffffff, 0x7fffffff, 0x7fffffff}) == 0x7fffffffu);  // 0x3fffffff + max clamps
  CHECK(run(hs, {0x80000000, 0x7fffffff, 0x80000000}) == 0x80000000u);
  CHECK(run(hs, {0x10000, 0x10000, 1}) == 2);
  Instr w = mk(Op::Mad, Type::S32, 3);
  w.mods.mul = MulMode::Wide;
  CHECK(run(w, {u32(-2), 3, u64(-10)}) == u64(-16));
  Instr wu = mk(Op::Mad, Type::U32, 3);
  wu.mods.mul = MulMode::Wide;
  CHECK(run(wu, {0xffffffff, 0xffffffff, 0xffffffff}) == 0xffffffff00000000ull);
  CHECK(run(wu, {0xffffffff, 0xffffffff, 0x1ffffffffull}) == 0);  // wraps at 64 bits
}

TEST_CASE("mul24 and mad24", "[semantics]") {
  Instr lo = mk(Op::Mul24, Type::U32, 2);
  lo.mods.mul = MulMode::Lo;
  CHECK(run(lo, {0xff000002, 3}) == 6);                         // upper byte ignored
  CHECK(run(lo, {0xffffff, 0xffffff}) == 0xfe000001u);          // low 32 of 48-bit product
  Instr hi = mk(Op::Mul24, Type::U32, 2);
  hi.mods.mul = MulMode::Hi;
  CHECK(run(hi, {0xffffff, 0xffffff}) == 0xfffffe00u);          // bits 47..16 of 0xfffffe000001
  Instr shi = mk(Op::Mul24, Type::S32, 2);
  shi.mods.mul = MulMode::Hi;
  CHECK(run(shi, {0xffffff, 1}) == 0xffffffffu);                // -1 (24-bit) * 1 >> 16
  Instr slo = mk(Op::Mul24, Type::S32, 2);
  slo.mods.mul = MulMode::Lo;
  CHECK(run(slo, {0x00800000, 2}) == u32(-0x1000000));          // -2^23 * 2
  Instr mad = mk(Op::Mad24, Type::S32, 3);
  mad.mods.mul = MulMode::Lo;
  CHECK(run(mad, {u32(-4), 5, 30}) == 10);
  Instr madhs = mk(Op::Mad24, Type::S32, 3);
  madhs.mods.mul = MulMode::Hi;
  madhs.mods.sat = true;
  CHECK(run(madhs, {0x7fffff, 0x7fffff, 0x7fffffff}) == 0x7fffffffu);
}

TEST_CASE("div and rem: truncation, INT_MIN/-1, division by zero", "[semantics]") {
  Instr d = mk(Op::Div, Type::S32, 2);
  CHECK(run(d, {u32(-7), 2}) == u32(-3));
  CHECK(run(d, {7, u32(-2)}) == u32(-3));
  CHECK(run(d, {0x80000000, u32(-1)}) == 0x80000000u);
  CHECK(run(d, {5, 0}) == 0xffffffffu);
  Instr d64 = mk(Op::Div, Type::S64, 2);
  CHECK(run(d64, {u64(INT64_MIN), u64(-1)}) == u64(INT64_MIN));
  CHECK(run(d64, {1, 0}) == ~0ull);
  Instr du = mk(Op::Div, Type::U32, 2);
  CHECK(run(du, {0xffffffff, 2}) == 0x7fffffffu);
  CHECK(run(du, {0, 0}) == 0xffffffffu);
  Instr d16 = mk(Op::Div, Type::S16, 2);
  CHECK(run(d16, {0x8000, 0xffff}) == 0x8000);

  Instr r = mk(Op::Rem, Type::S32, 2);
  CHECK(run(r, {u32(-7), 2}) == u32(-1));
  CHECK(run(r, {7, u32(-2)}) == 1);
  CHECK(run(r, {0x80000000, u32(-1)}) == 0);
  CHECK(run(r, {9, 0}) == 9);
  Instr r64 = mk(Op::Rem, Type::S64, 2);
  CHECK(run(r64, {u64(INT64_MIN), u64(-1)}) == 0);
  Instr ru = mk(Op::Rem, Type::U32, 2);
  CHECK(run(ru, {0xffffffff, 10}) == 5);
}

TEST_CASE("abs neg min max sad", "[semantics]") {
  CHECK(run(mk(Op::Abs, Type::S32, 1), {u32(-5)}) == 5);
  CHECK(run(mk(Op::Abs, Type::S32, 1), {0x80000000}) == 0x80000000u);
  CHECK(run(mk(Op::Abs, Type::S16, 1), {0x8001}) == 0x7fff);
  CHECK(run(mk(Op::Abs, Type::S64, 1), {u64(-9)}) == 9);
  CHECK(run(mk(Op::Neg, Type::S32, 1), {5}) == u32(-5));
  CHECK(run(mk(Op::Neg, Type::S32, 1), {0x80000000}) == 0x80000000u);
  CHECK(run(mk(Op::Neg, Type::S64, 1), {1}) == ~0ull);

  CHECK(run(mk(Op::Min, Type::S32, 2), {u32(-1), 1}) == u32(-1));
  CHECK(run(mk(Op::Min, Type::U32, 2), {u32(-1), 1}) == 1);
  CHECK(run(mk(Op::Max, Type::S32, 2), {u32(-1), 1}) == 1);
  CHECK(run(mk(Op::Max, Type::U32, 2), {u32(-1), 1}) == 0xffffffffu);
  CHECK(run(mk(Op::Max, Type::S16, 2), {0x8000, 0x7fff}) == 0x7fff);
  CHECK(run(mk(Op::Min, Type::S64, 2), {u64(INT64_MIN), 0}) == u64(INT64_MIN));
  CHECK(run(mk(Op::Max, Type::U64, 2), {~0ull, 0}) == ~0ull);

  CHECK(run(mk(Op::Sad, Type::S32, 3), {u32(-3), 4, 10}) == 17);
  CHECK(run(mk(Op::Sad, Type::U32, 3), {1, 0xffffffff, 0}) == 0xfffffffeu);
  CHECK(run(mk(Op::Sad, Type::S32, 3), {0x80000000, 0x7fffffff, 0}) == 0xffffffffu);
  CHECK(run(mk(Op::Sad, Type::U16, 3), {3, 10, 0xffff}) == 6);
}

TEST_CASE("dp4a and dp2a", "[semantics]") {
  Instr d4 = mk(Op::Dp4a, Type::U32, 3, Type::U32);
  CHECK(run(d4, {0x01020304, 0x01010101, 10}) == 20);
  CHECK(run(d4, {0xffffffff, 0xffffffff, 0}) == 4u * 255 * 255);
  Instr d4s = mk(Op::Dp4a, Type::S32, 3, Type::S32);
  CHECK(run(d4s, {0xffffffff, 0x01010101, 0}) == u32(-4));
  CHECK(run(d4s, {0x80808080, 0x80808080, 0}) == 4u * 128 * 128);
  Instr mix = mk(Op::Dp4a, Type::S32, 3, Type::U32);
  CHECK(run(mix, {0x000000ff, 0x000000ff, 0}) == u32(-255));
  Instr d2 = mk(Op::Dp2a, Type::S32, 3, Type::S32);
  d2.mods.mul = MulMode::Lo;
  CHECK(run(d2, {0x0002ffff, 0x04030201, 1}) == 1 + (-1) * 1 + 2 * 2);
  d2.mods.mul = MulMode::Hi;
  CHECK(run(d2, {0x0002ffff, 0x04030201, 1}) == 1 + (-1) * 3 + 2 * 4);
}

namespace {

Instr carry(Op op, Type t, unsigned nsrc, bool cc, bool cin, MulMode mm = MulMode::None) {
  Instr in = mk(op, t, nsrc);
  in.mods.cc = cc;
  in.mods.carry_in = cin;
  in.mods.mul = mm;
  return in;
}

}  // namespace

TEST_CASE("carry chains: add.cc/addc, sub.cc/subc, mad.cc/madc", "[semantics]") {
  uint64_t cf = 7;
  CHECK(run(carry(Op::Add, Type::U32, 2, true, false), {0xffffffff, 1}, &cf) == 0);
  CHECK(cf == 1);
  CHECK(run(carry(Op::Add, Type::U32, 2, true, false), {0xfffffffe, 1}, &cf) == 0xffffffffu);
  CHECK(cf == 0);
  CHECK(run(carry(Op::Add, Type::U32, 2, false, true), {0, 0, 1}) == 1);  // addc: CF in s[2]
  CHECK(run(carry(Op::Add, Type::U32, 2, true, true), {0xffffffff, 0, 1}, &cf) == 0);
  CHECK(cf == 1);
  CHECK(run(carry(Op::Add, Type::U64, 2, true, false), {~0ull, 1}, &cf) == 0);
  CHECK(cf == 1);
  CHECK(run(carry(Op::Sub, Type::U32, 2, true, false), {0, 1}, &cf) == 0xffffffffu);
  CHECK(cf == 1);  // borrow
  CHECK(run(carry(Op::Sub, Type::U32, 2, true, true), {5, 2, 1}, &cf) == 2);
  CHECK(cf == 0);
  CHECK(run(carry(Op::Sub, Type::S32, 2, true, true), {0, 0xffffffff, 1}, &cf) == 0);
  CHECK(cf == 1);
  CHECK(run(carry(Op::Mad, Type::U32, 3, true, false, MulMode::Lo), {0xffffffff, 0xffffffff, 0xffffffff}, &cf) == 0);
  CHECK(cf == 1);
  CHECK(run(carry(Op::Mad, Type::U32, 3, false, true, MulMode::Hi), {0xffffffff, 0xffffffff, 0, 1}) == 0xffffffffu);
  CHECK(run(carry(Op::Mad, Type::U32, 3, true, true, MulMode::Hi), {0xffffffff, 0xffffffff, 1, 1}, &cf) == 0);
  CHECK(cf == 1);

  // 96-bit additions against __int128
  uint64_t rng = 99;
  auto next = [&]() {
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return rng >> 16;
  };
  for (int i = 0; i < 2000; ++i) {
    uint64_t a[3], b[3];
    for (int k = 0; k < 3; ++k) a[k] = next() & 0xffffffffu, b[k] = (i & 1) ? 0xffffffffu - a[k] + (k == 0) : next() & 0xffffffffu;
    uint64_t r0 = run(carry(Op::Add, Type::U32, 2, true, false), {a[0], b[0]}, &cf);
    uint64_t r1 = run(carry(Op::Add, Type::U32, 2, true, true), {a[1], b[1], cf}, &cf);
    uint64_t r2 = run(carry(Op::Add, Type::U32, 2, false, true), {a[2], b[2], cf});
    const unsigned __int128 A = (static_cast<unsigned __int128>(a[2]) << 64) | (a[1] << 32) | a[0];
    const unsigned __int128 B = (static_cast<unsigned __int128>(b[2]) << 64) | (b[1] << 32) | b[0];
    const unsigned __int128 R = A + B;
    REQUIRE(r0 == static_cast<uint64_t>(R & 0xffffffffu));
    REQUIRE(r1 == static_cast<uint64_t>((R >> 32) & 0xffffffffu));
    REQUIRE(r2 == static_cast<uint64_t>((R >> 64) & 0xffffffffu));
    uint64_t s0 = run(carry(Op::Sub, Type::U32, 2, true, false), {a[0], b[0]}, &cf);
    uint64_t s1 = run(carry(Op::Sub, Type::U32, 2, true, true), {a[1], b[1], cf}, &cf);
    uint64_t s2 = run(carry(Op::Sub, Type::U32, 2, false, true), {a[2], b[2], cf});
    const unsigned __int128 S = A - B;
    REQUIRE(s0 == static_cast<uint64_t>(S & 0xffffffffu));
    REQUIRE(s1 == static_cast<uint64_t>((S >> 32) & 0xffffffffu));
    REQUIRE(s2 == static_cast<uint64_t>((S >> 64) & 0xffffffffu));
  }
}
