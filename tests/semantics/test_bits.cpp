// Logic, shift and bit-manipulation instructions (PTX ISA 9.0, 9.7.7, 9.7.8).
#include "func/semantics/detail.h"
#include "sem_helpers.h"

using namespace semtest;

TEST_CASE("and/or/xor/not/cnot on predicates and bits", "[semantics]") {
  CHECK(run(mk(Op::And, Type::Pred, 2), {1, 0}) == 0);
  CHECK(run(mk(Op::And, Type::Pred, 2), {1, 1}) == 1);
  CHECK(run(mk(Op::Or, Type::Pred, 2), {0, 1}) == 1);
  CHECK(run(mk(Op::Xor, Type::Pred, 2), {1, 1}) == 0);
  CHECK(run(mk(Op::Not, Type::Pred, 1), {1}) == 0);
  CHECK(run(mk(Op::Not, Type::Pred, 1), {0}) == 1);
  CHECK(run(mk(Op::Not, Type::B32, 1), {0}) == 0xffffffffu);
  CHECK(run(mk(Op::Not, Type::B16, 1), {0x00ff}) == 0xff00);
  CHECK(run(mk(Op::Not, Type::B64, 1), {0}) == ~0ull);
  CHECK(run(mk(Op::And, Type::B32, 2), {0xf0f0f0f0, u64(-1)}) == 0xf0f0f0f0u);
  CHECK(run(mk(Op::Or, Type::B16, 2), {0x0f00, 0x00f0}) == 0x0ff0);
  CHECK(run(mk(Op::Xor, Type::B64, 2), {~0ull, 1}) == ~1ull);
  CHECK(run(mk(Op::Cnot, Type::B32, 1), {0}) == 1);
  CHECK(run(mk(Op::Cnot, Type::B32, 1), {5}) == 0);
  CHECK(run(mk(Op::Cnot, Type::B16, 1), {0x10000}) == 1);  // only the low 16 bits count
}

TEST_CASE("shl/shr clamp shift amounts at the width", "[semantics]") {
  CHECK(run(mk(Op::Shl, Type::B32, 2), {1, 31}) == 0x80000000u);
  CHECK(run(mk(Op::Shl, Type::B32, 2), {1, 32}) == 0);
  CHECK(run(mk(Op::Shl, Type::B32, 2), {1, 0xffffffff}) == 0);
  CHECK(run(mk(Op::Shl, Type::B16, 2), {1, 16}) == 0);
  CHECK(run(mk(Op::Shl, Type::B16, 2), {0x8001, 1}) == 2);
  CHECK(run(mk(Op::Shl, Type::B64, 2), {1, 63}) == 0x8000000000000000ull);
  CHECK(run(mk(Op::Shl, Type::B64, 2), {1, 64}) == 0);
  CHECK(run(mk(Op::Shl, Type::B32, 2), {1, 0x100000001ull}) == 2);  // the amount is a u32
  CHECK(run(mk(Op::Shr, Type::S32, 2), {0x80000000, 31}) == 0xffffffffu);
  CHECK(run(mk(Op::Shr, Type::S32, 2), {0x80000000, 100}) == 0xffffffffu);
  CHECK(run(mk(Op::Shr, Type::S32, 2), {0x40000000, 100}) == 0);
  CHECK(run(mk(Op::Shr, Type::U32, 2), {0x80000000, 31}) == 1);
  CHECK(run(mk(Op::Shr, Type::U32, 2), {0x80000000, 32}) == 0);
  CHECK(run(mk(Op::Shr, Type::B32, 2), {0x80000000, 4}) == 0x08000000u);
  CHECK(run(mk(Op::Shr, Type::S64, 2), {u64(-8), 1}) == u64(-4));
  CHECK(run(mk(Op::Shr, Type::S64, 2), {u64(-8), 64}) == ~0ull);
  CHECK(run(mk(Op::Shr, Type::S16, 2), {0x8000, 20}) == 0xffff);
  CHECK(run(mk(Op::Shr, Type::U16, 2), {0x8000, 15}) == 1);
}

TEST_CASE("popc clz brev bfind", "[semantics]") {
  CHECK(run(mk(Op::Popc, Type::B32, 1), {0xf0f0}) == 8);
  CHECK(run(mk(Op::Popc, Type::B32, 1), {0xffffffff}) == 32);
  CHECK(run(mk(Op::Popc, Type::B64, 1), {~0ull}) == 64);
  CHECK(run(mk(Op::Clz, Type::B32, 1), {0}) == 32);
  CHECK(run(mk(Op::Clz, Type::B32, 1), {1}) == 31);
  CHECK(run(mk(Op::Clz, Type::B32, 1), {0x80000000}) == 0);
  CHECK(run(mk(Op::Clz, Type::B64, 1), {1}) == 63);
  CHECK(run(mk(Op::Clz, Type::B64, 1), {0}) == 64);
  CHECK(run(mk(Op::Brev, Type::B32, 1), {1}) == 0x80000000u);
  CHECK(run(mk(Op::Brev, Type::B32, 1), {0x12345678}) == 0x1e6a2c48u);
  CHECK(run(mk(Op::Brev, Type::B64, 1), {1}) == 0x8000000000000000ull);
  CHECK(run(mk(Op::Brev, Type::B64, 1), {0x0123456789abcdefull}) == 0xf7b3d591e6a2c480ull);
  CHECK(run(mk(Op::Bfind, Type::U32, 1), {0}) == 0xffffffffu);
  CHECK(run(mk(Op::Bfind, Type::U32, 1), {0x80000000}) == 31);
  CHECK(run(mk(Op::Bfind, Type::U32, 1), {1}) == 0);
  CHECK(run(mk(Op::Bfind, Type::S32, 1), {u32(-1)}) == 0xffffffffu);
  CHECK(run(mk(Op::Bfind, Type::S32, 1), {u32(-2)}) == 0);
  CHECK(run(mk(Op::Bfind, Type::S32, 1), {0x7fffffff}) == 30);
  CHECK(run(mk(Op::Bfind, Type::S32, 1), {0x80000000}) == 30);
  CHECK(run(mk(Op::Bfind, Type::U64, 1), {1ull << 40}) == 40);
  CHECK(run(mk(Op::Bfind, Type::S64, 1), {u64(INT64_MIN)}) == 62);
  {
    Instr sa = mk(Op::Bfind, Type::U32, 1);
    sa.mods.shiftamt = true;
    CHECK(run(sa, {0x80000000}) == 0);
    CHECK(run(sa, {1}) == 31);
    CHECK(run(sa, {0}) == 0xffffffffu);
    Instr sa64 = mk(Op::Bfind, Type::S64, 1);
    sa64.mods.shiftamt = true;
    CHECK(run(sa64, {1ull << 40}) == 23);
    CHECK(run(sa64, {u64(-2)}) == 63);
  }
}

TEST_CASE("bfe: signed/unsigned, pos/len clamping", "[semantics]") {
  CHECK(run(mk(Op::Bfe, Type::U32, 3), {0x12345678, 4, 8}) == 0x67);
  CHECK(run(mk(Op::Bfe, Type::S32, 3), {0x12345678, 4, 8}) == 0x67);
  CHECK(run(mk(Op::Bfe, Type::S32, 3), {0x000000f0, 4, 4}) == 0xffffffffu);
  CHECK(run(mk(Op::Bfe, Type::U32, 3), {0x000000f0, 4, 4}) == 0xf);
  CHECK(run(mk(Op::Bfe, Type::S32, 3), {0xffffffff, 4, 0}) == 0);  // len 0
  CHECK(run(mk(Op::Bfe, Type::U32, 3), {0xffffffff, 32, 4}) == 0);  // pos past the msb
  CHECK(run(mk(Op::Bfe, Type::S32, 3), {0x80000000, 40, 4}) == 0xffffffffu);  // sign = a[31]
  CHECK(run(mk(Op::Bfe, Type::S32, 3), {0x40000000, 40, 4}) == 0);
  CHECK(run(mk(Op::Bfe, Type::U32, 3), {0xf0000000, 28, 8}) == 0xf);  // field runs past bit 31
  CHECK(run(mk(Op::Bfe, Type::S32, 3), {0xf0000000, 28, 8}) == 0xffffffffu);
  CHECK(run(mk(Op::Bfe, Type::U32, 3), {0xffffffff, 0, 32}) == 0xffffffffu);
  CHECK(run(mk(Op::Bfe, Type::U32, 3), {0xffffffff, 0x104, 0x204}) == 0xf);  // only 8 bits of pos/len
  CHECK(run(mk(Op::Bfe, Type::U32, 3), {0xffffffff, 0, 0x100}) == 0);
  CHECK(run(mk(Op::Bfe, Type::U64, 3), {0xabcdef0000000000ull, 60, 8}) == 0xa);
  CHECK(run(mk(Op::Bfe, Type::S64, 3), {0xabcdef0000000000ull, 60, 8}) == 0xfffffffffffffffaull);
  CHECK(run(mk(Op::Bfe, Type::S64, 3), {0x0000000080000000ull, 31, 1}) == ~0ull);
  CHECK(run(mk(Op::Bfe, Type::U64, 3), {~0ull, 0, 64}) == ~0ull);
}

TEST_CASE("bfi: insertion with pos/len clamping", "[semantics]") {
  CHECK(run(mk(Op::Bfi, Type::B32, 4), {0xff, 0, 8, 4}) == 0xf00);
  CHECK(run(mk(Op::Bfi, Type::B32, 4), {0xff, 0, 30, 8}) == 0xc0000000u);
  CHECK(run(mk(Op::Bfi, Type::B32, 4), {0xff, 0x12345678, 4, 0}) == 0x12345678u);
  CHECK(run(mk(Op::Bfi, Type::B32, 4), {0xff, 0x12345678, 32, 8}) == 0x12345678u);
  CHECK(run(mk(Op::Bfi, Type::B32, 4), {0, 0xffffffff, 0, 32}) == 0);
  CHECK(run(mk(Op::Bfi, Type::B32, 4), {0xa, 0xffffffff, 0x108, 0x104}) == 0xfffffaffu);
  CHECK(run(mk(Op::Bfi, Type::B64, 4), {0xabc, 0, 60, 12}) == 0xc000000000000000ull);
  CHECK(run(mk(Op::Bfi, Type::B64, 4), {1, 0, 63, 1}) == 0x8000000000000000ull);
}

TEST_CASE("prmt default mode", "[semantics]") {
  const uint64_t a = 0x33221100, b = 0x77665544;
  CHECK(run(mk(Op::Prmt, Type::B32, 3), {a, b, 0x3210}) == a);
  CHECK(run(mk(Op::Prmt, Type::B32, 3), {a, b, 0x7654}) == b);
  CHECK(run(mk(Op::Prmt, Type::B32, 3), {a, b, 0x0123}) == 0x00112233u);
  CHECK(run(mk(Op::Prmt, Type::B32, 3), {a, b, 0x5410}) == 0x55441100u);
  CHECK(run(mk(Op::Prmt, Type::B32, 3), {a, b, 0x1076}) == 0x11007766u);
  // bit 3 of a selector replicates the selected byte's sign
  CHECK(run(mk(Op::Prmt, Type::B32, 3), {0x000080ff, 0, 0x3298}) == 0x0000ffffu);
  CHECK(run(mk(Op::Prmt, Type::B32, 3), {0x0000807f, 0, 0x3298}) == 0x0000ff00u);
  CHECK(run(mk(Op::Prmt, Type::B32, 3), {a, b, 0xffff3210}) == a);  // upper selector bits ignored
}

TEST_CASE("lop3 truth tables (PTX ISA examples)", "[semantics]") {
  const uint64_t ta = 0xf0, tb = 0xcc, tc = 0xaa;
  CHECK(run(mk(Op::Lop3, Type::B32, 4), {ta, tb, tc, ta & tb & tc}) == 0x80);
  CHECK(run(mk(Op::Lop3, Type::B32, 4), {ta, tb, tc, ta | tb | tc}) == 0xfe);
  CHECK(run(mk(Op::Lop3, Type::B32, 4), {ta, tb, tc, ta & tb & (~tc & 0xff)}) == 0x40);
  CHECK(run(mk(Op::Lop3, Type::B32, 4), {ta, tb, tc, ((ta & tb) | tc) ^ ta}) == 0x1a);
  // applied to real values the LUT acts bitwise
  const uint64_t x = 0x12345678, y = 0x9abcdef0, z = 0x0f0f0f0f;
  CHECK(run(mk(Op::Lop3, Type::B32, 4), {x, y, z, 0x80}) == (x & y & z));
  CHECK(run(mk(Op::Lop3, Type::B32, 4), {x, y, z, 0x96}) == (x ^ y ^ z));
  CHECK(run(mk(Op::Lop3, Type::B32, 4), {x, y, z, 0xe8}) == ((x & y) | (x & z) | (y & z)));  // majority
  CHECK(run(mk(Op::Lop3, Type::B32, 4), {x, y, z, 0xca}) == (((x & y) | (~x & z)) & 0xffffffffu));  // select
  CHECK(run(mk(Op::Lop3, Type::B32, 4), {x, y, z, 0}) == 0);
  CHECK(run(mk(Op::Lop3, Type::B32, 4), {x, y, z, 0xff}) == 0xffffffffu);
}

TEST_CASE("shf funnel shifts: wrap and clamp", "[semantics]") {
  const uint64_t lo = 0x89abcdef, hi = 0x01234567;
  Instr l = mk(Op::Shf, Type::B32, 3);
  l.mods.mul = MulMode::Lo;
  CHECK(run(l, {lo, hi, 8}) == 0x23456789u);
  CHECK(run(l, {lo, hi, 40}) == 0x23456789u);  // wrap: 40 & 31
  CHECK(run(l, {lo, hi, 0}) == hi);
  l.mods.shift_clamp = true;
  CHECK(run(l, {lo, hi, 40}) == lo);  // clamp: 32
  CHECK(run(l, {lo, hi, 32}) == lo);
  CHECK(run(l, {lo, hi, 8}) == 0x23456789u);
  Instr r = mk(Op::Shf, Type::B32, 3);
  r.mods.mul = MulMode::Hi;
  CHECK(run(r, {lo, hi, 8}) == 0x6789abcdu);
  CHECK(run(r, {lo, hi, 40}) == 0x6789abcdu);
  CHECK(run(r, {lo, hi, 0}) == lo);
  r.mods.shift_clamp = true;
  CHECK(run(r, {lo, hi, 40}) == hi);
}

TEST_CASE("bmsk and fns (PTX ISA examples)", "[semantics]") {
  {
    Instr wrap = mk(Op::Bmsk, Type::B32, 2);
    CHECK(run(wrap, {1, 2}) == 0x6);
    CHECK(run(wrap, {0, 32}) == 0);           // width wraps to 0
    CHECK(run(wrap, {0, 31}) == 0x7fffffffu);
    CHECK(run(wrap, {4, 0}) == 0);
    CHECK(run(wrap, {33, 2}) == 0x6);         // position wraps to 1
    CHECK(run(wrap, {30, 4}) == 0xc0000000u); // runs past bit 31
    Instr clamp = mk(Op::Bmsk, Type::B32, 2);
    clamp.mods.shift_clamp = true;
    CHECK(run(clamp, {1, 2}) == 0x6);
    CHECK(run(clamp, {32, 4}) == 0);
    CHECK(run(clamp, {4, 40}) == 0xfffffff0u);
    CHECK(run(clamp, {0, 32}) == 0xffffffffu);
  }

  Instr f = mk(Op::Fns, Type::B32, 3);
  CHECK(run(f, {0xaaaaaaaa, 3, 1}) == 3);
  CHECK(run(f, {0xaaaaaaaa, 3, u32(-1)}) == 3);
  CHECK(run(f, {0xaaaaaaaa, 2, 1}) == 3);
  CHECK(run(f, {0xaaaaaaaa, 2, u32(-1)}) == 1);
  CHECK(run(f, {0xaaaaaaaa, 2, 0}) == 0xffffffffu);
  CHECK(run(f, {0xaaaaaaaa, 3, 0}) == 3);
  CHECK(run(f, {0xaaaaaaaa, 0, 16}) == 31);
  CHECK(run(f, {0xaaaaaaaa, 0, 17}) == 0xffffffffu);
  CHECK(run(f, {0x1, 31, u32(-1)}) == 0);
}
