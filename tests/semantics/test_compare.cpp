// Comparison and selection (PTX ISA 9.0, 9.7.4): setp, set, selp, slct.
#include <cmath>

#include "sem_helpers.h"

using namespace semtest;

namespace {

Instr cmpI(Op op, Type t, Cmp c, Type t2 = Type::None) {
  Instr in = mk(op, t, 2, t2);
  in.mods.cmp = c;
  return in;
}

}  // namespace

TEST_CASE("setp on integers: signed, unsigned, bits", "[semantics]") {
  CHECK(run(cmpI(Op::Setp, Type::S32, Cmp::Lt), {u32(-1), 1}) == 1);
  CHECK(run(cmpI(Op::Setp, Type::U32, Cmp::Lt), {u32(-1), 1}) == 0);
  CHECK(run(cmpI(Op::Setp, Type::U32, Cmp::Lo), {u32(-1), 1}) == 0);
  CHECK(run(cmpI(Op::Setp, Type::U32, Cmp::Hi), {u32(-1), 1}) == 1);
  CHECK(run(cmpI(Op::Setp, Type::U32, Cmp::Hs), {5, 5}) == 1);
  CHECK(run(cmpI(Op::Setp, Type::U32, Cmp::Ls), {6, 5}) == 0);
  CHECK(run(cmpI(Op::Setp, Type::S32, Cmp::Ge), {0x80000000, 0x7fffffff}) == 0);
  CHECK(run(cmpI(Op::Setp, Type::S16, Cmp::Ge), {0x8000, 0x7fff}) == 0);
  CHECK(run(cmpI(Op::Setp, Type::S16, Cmp::Le), {0x8000, 0x7fff}) == 1);
  CHECK(run(cmpI(Op::Setp, Type::S64, Cmp::Gt), {1, u64(-1)}) == 1);
  CHECK(run(cmpI(Op::Setp, Type::U64, Cmp::Gt), {1, u64(-1)}) == 0);
  CHECK(run(cmpI(Op::Setp, Type::B32, Cmp::Eq), {0x12345678, 0x12345678}) == 1);
  CHECK(run(cmpI(Op::Setp, Type::B64, Cmp::Ne), {1, 2}) == 1);
  // a sign-extended immediate compares by its low bits
  CHECK(run(cmpI(Op::Setp, Type::U32, Cmp::Eq), {0xffffffff, u64(-1)}) == 1);
}

TEST_CASE("setp on floats: ordered, unordered, num/nan, -0.0, .ftz", "[semantics]") {
  const uint64_t nan = 0x7fc00000, one = fb(1);
  CHECK(run(cmpI(Op::Setp, Type::F32, Cmp::Lt), {nan, one}) == 0);
  CHECK(run(cmpI(Op::Setp, Type::F32, Cmp::Ltu), {nan, one}) == 1);
  CHECK(run(cmpI(Op::Setp, Type::F32, Cmp::Ne), {nan, one}) == 0);
  CHECK(run(cmpI(Op::Setp, Type::F32, Cmp::Neu), {nan, one}) == 1);
  CHECK(run(cmpI(Op::Setp, Type::F32, Cmp::Eq), {nan, nan}) == 0);
  CHECK(run(cmpI(Op::Setp, Type::F32, Cmp::Equ), {nan, nan}) == 1);
  CHECK(run(cmpI(Op::Setp, Type::F32, Cmp::Eq), {fb(-0.0f), fb(0.0f)}) == 1);
  CHECK(run(cmpI(Op::Setp, Type::F32, Cmp::Lt), {fb(-0.0f), fb(0.0f)}) == 0);
  CHECK(run(cmpI(Op::Setp, Type::F32, Cmp::Num), {one, fb(2)}) == 1);
  CHECK(run(cmpI(Op::Setp, Type::F32, Cmp::Num), {one, nan}) == 0);
  CHECK(run(cmpI(Op::Setp, Type::F32, Cmp::Nan), {one, nan}) == 1);
  CHECK(run(cmpI(Op::Setp, Type::F32, Cmp::Geu), {fb(1), fb(2)}) == 0);
  CHECK(run(cmpI(Op::Setp, Type::F32, Cmp::Gtu), {fb(3), fb(2)}) == 1);
  CHECK(run(cmpI(Op::Setp, Type::F32, Cmp::Leu), {fb(3), fb(2)}) == 0);
  CHECK(run(cmpI(Op::Setp, Type::F32, Cmp::Le), {0xff800000, fb(-1e38f)}) == 1);
  CHECK(run(cmpI(Op::Setp, Type::F64, Cmp::Gt), {db(1e300), db(1e299)}) == 1);
  CHECK(run(cmpI(Op::Setp, Type::F64, Cmp::Equ), {db(NAN), db(0)}) == 1);
  CHECK(run(cmpI(Op::Setp, Type::F16, Cmp::Lt), {0xbc00, 0x3c00}) == 1);
  Instr z = cmpI(Op::Setp, Type::F32, Cmp::Eq);
  CHECK(run(z, {1, 0}) == 0);
  z.mods.ftz = true;
  CHECK(run(z, {1, 0}) == 1);
}

TEST_CASE("setp with two destinations and .and/.or/.xor", "[semantics]") {
  uint64_t q = 0;
  Instr two = cmpI(Op::Setp, Type::S32, Cmp::Lt);
  two.ndst = 2;
  two.dst[1].kind = OperandKind::PredOut;
  CHECK(run(two, {1, 2}, &q) == 1);
  CHECK(q == 0);
  CHECK(run(two, {2, 1}, &q) == 0);
  CHECK(q == 1);

  Instr andp = two;
  andp.nsrc = 3;
  andp.src[2].kind = OperandKind::Reg;
  andp.mods.boolop = BoolOp::And;
  CHECK(run(andp, {1, 2, 0}, &q) == 0);
  CHECK(q == 0);
  CHECK(run(andp, {1, 2, 1}, &q) == 1);
  CHECK(q == 0);
  CHECK(run(andp, {2, 1, 1}, &q) == 0);
  CHECK(q == 1);
  Instr orp = andp;
  orp.mods.boolop = BoolOp::Or;
  CHECK(run(orp, {2, 1, 0}, &q) == 0);
  CHECK(q == 1);
  CHECK(run(orp, {1, 2, 1}, &q) == 1);
  CHECK(q == 1);
  Instr xorp = andp;
  xorp.mods.boolop = BoolOp::Xor;
  CHECK(run(xorp, {1, 2, 1}, &q) == 0);
  CHECK(q == 1);
  CHECK(run(xorp, {1, 2, 0}, &q) == 1);
  CHECK(q == 0);
  // unordered compare of a NaN: p = true, q = false
  Instr f = cmpI(Op::Setp, Type::F32, Cmp::Ltu);
  f.ndst = 2;
  f.dst[1].kind = OperandKind::PredOut;
  CHECK(run(f, {0x7fc00000, fb(1)}, &q) == 1);
  CHECK(q == 0);
}

TEST_CASE("set writes all ones or 1.0f", "[semantics]") {
  CHECK(run(cmpI(Op::Set, Type::U32, Cmp::Lt, Type::S32), {u32(-1), 0}) == 0xffffffffu);
  CHECK(run(cmpI(Op::Set, Type::S32, Cmp::Lt, Type::U32), {u32(-1), 0}) == 0);
  CHECK(run(cmpI(Op::Set, Type::F32, Cmp::Eq, Type::F32), {fb(2), fb(2)}) == 0x3f800000u);
  CHECK(run(cmpI(Op::Set, Type::F32, Cmp::Gt, Type::F64), {db(1), db(2)}) == 0);
  CHECK(run(cmpI(Op::Set, Type::U32, Cmp::Nan, Type::F32), {0x7fc00000, 0}) == 0xffffffffu);
  Instr a = cmpI(Op::Set, Type::U32, Cmp::Eq, Type::U32);
  a.nsrc = 3;
  a.src[2].kind = OperandKind::Reg;
  a.mods.boolop = BoolOp::And;
  CHECK(run(a, {1, 1, 0}) == 0);
  CHECK(run(a, {1, 1, 1}) == 0xffffffffu);
}

TEST_CASE("selp and slct", "[semantics]") {
  CHECK(run(mk(Op::Selp, Type::B32, 3), {0x11, 0x22, 1}) == 0x11);
  CHECK(run(mk(Op::Selp, Type::B32, 3), {0x11, 0x22, 0}) == 0x22);
  CHECK(run(mk(Op::Selp, Type::F64, 3), {db(1.5), db(2.5), 1}) == db(1.5));
  CHECK(run(mk(Op::Selp, Type::S16, 3), {u64(-1), 0, 1}) == 0xffff);
  CHECK(run(mk(Op::Slct, Type::S32, 3, Type::S32), {1, 2, u32(-1)}) == 2);
  CHECK(run(mk(Op::Slct, Type::S32, 3, Type::S32), {1, 2, 0}) == 1);
  CHECK(run(mk(Op::Slct, Type::B64, 3, Type::S32), {~0ull, 2, 0x7fffffff}) == ~0ull);
  CHECK(run(mk(Op::Slct, Type::F32, 3, Type::F32), {fb(1), fb(2), fb(-0.0f)}) == fb(1));
  CHECK(run(mk(Op::Slct, Type::F32, 3, Type::F32), {fb(1), fb(2), 0x7fc00000}) == fb(2));
  CHECK(run(mk(Op::Slct, Type::U32, 3, Type::F32), {1, 2, fb(-1)}) == 2);
  Instr z = mk(Op::Slct, Type::U32, 3, Type::F32);
  CHECK(run(z, {1, 2, 0x80000001}) == 2);
  z.mods.ftz = true;
  CHECK(run(z, {1, 2, 0x80000001}) == 1);  // -subnormal flushes to -0.0 >= 0
}
