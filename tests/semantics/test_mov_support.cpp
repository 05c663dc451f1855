// mov (scalar, pack, unpack), isLaneOp and what laneSupports() rejects.
#include "sem_helpers.h"

using namespace semtest;
using rfsim::func::evalLane;
using rfsim::func::isLaneOp;

TEST_CASE("mov of registers and immediates", "[semantics]") {
  CHECK(run(mk(Op::Mov, Type::B32, 1), {u64(-1)}) == 0xffffffffu);
  CHECK(run(mk(Op::Mov, Type::U16, 1), {0x12345}) == 0x2345);
  CHECK(run(mk(Op::Mov, Type::B64, 1), {0x123456789abcdefull}) == 0x123456789abcdefull);
  CHECK(run(mk(Op::Mov, Type::Pred, 1), {1}) == 1);
  CHECK(run(mk(Op::Mov, Type::F32, 1), {fb(1.5f)}) == fb(1.5f));
  Instr sreg = mk(Op::Mov, Type::U32, 1);
  sreg.src[0].kind = OperandKind::SReg;
  sreg.src[0].sreg = SReg::Tid;
  CHECK(run(sreg, {7}) == 7);  // the caller resolved %tid.x
}

TEST_CASE("mov packs and unpacks vectors (element 0 is the low part)", "[semantics]") {
  Instr pack = mk(Op::Mov, Type::B64, 1);
  pack.src[0].kind = OperandKind::Vec;
  pack.src[0].vec_n = 2;
  uint64_t s[4] = {0x11111111, 0x22222222, 0, 0}, d[4] = {};
  REQUIRE(supported(pack));
  evalLane(pack, s, d);
  CHECK(d[0] == 0x2222222211111111ull);

  Instr pack4 = mk(Op::Mov, Type::B64, 1);
  pack4.src[0].kind = OperandKind::Vec;
  pack4.src[0].vec_n = 4;
  uint64_t s4[4] = {0x1111, 0x2222, 0x3333, 0x14444};  // high garbage is dropped
  REQUIRE(supported(pack4));
  evalLane(pack4, s4, d);
  CHECK(d[0] == 0x4444333322221111ull);

  Instr unpack = mk(Op::Mov, Type::B64, 1);
  unpack.dst[0].kind = OperandKind::Vec;
  unpack.dst[0].vec_n = 2;
  uint64_t src[1] = {0x2222222211111111ull};
  REQUIRE(supported(unpack));
  evalLane(unpack, src, d);
  CHECK(d[0] == 0x11111111u);
  CHECK(d[1] == 0x22222222u);

  Instr unpack32 = mk(Op::Mov, Type::B32, 1);
  unpack32.dst[0].kind = OperandKind::Vec;
  unpack32.dst[0].vec_n = 2;
  uint64_t src32[1] = {0x12345678};
  REQUIRE(supported(unpack32));
  evalLane(unpack32, src32, d);
  CHECK(d[0] == 0x5678);
  CHECK(d[1] == 0x1234);
}

TEST_CASE("isLaneOp splits lane ops from executor ops", "[semantics]") {
  for (Op op : {Op::Ld, Op::Ldu, Op::St, Op::Cvta, Op::Prefetch, Op::Bra, Op::Call, Op::Ret, Op::Exit, Op::Trap,
                Op::Brkpt, Op::Bar, Op::Membar, Op::Fence, Op::Atom, Op::Red, Op::Shfl, Op::Vote, Op::Activemask,
                Op::Match, Op::Nanosleep}) {
    INFO(static_cast<int>(op));
    CHECK_FALSE(isLaneOp(op));
  }
  for (Op op : {Op::Mov, Op::Cvt, Op::Add, Op::Mad, Op::Fma, Op::Setp, Op::Selp, Op::Prmt, Op::Lop3, Op::Shf,
                Op::Bfe, Op::Dp4a, Op::Tanh}) {
    INFO(static_cast<int>(op));
    CHECK(isLaneOp(op));
  }
}

TEST_CASE("laneSupports rejects what evalLane does not implement, naming it", "[semantics]") {
  std::string why;
  auto rejects = [&](Instr in, const char* needle) {
    bool ok = supported(in, &why);
    INFO(why);
    CHECK_FALSE(ok);
    CHECK(why.find(needle) != std::string::npos);
  };
  rejects(mk(Op::Testp, Type::F32, 1), "testp.f32");  // .finite etc. arrive with no test
  Instr tpi = mk(Op::Testp, Type::S32, 1);
  tpi.mods.cmp = Cmp::Num;
  rejects(tpi, "testp.s32");
  rejects(mk(Op::Fns, Type::B64, 3), "fns.b64");
  rejects(mk(Op::Ld, Type::U32, 1), "not a lane operation");
  rejects(mk(Op::Bar, Type::None, 1), "bar");
  Instr cc = mk(Op::Add, Type::U32, 2);
  cc.mods.cc = true;
  rejects(cc, "carry");  // without with_carry
  CHECK(rfsim::func::laneSupports(cc, &why, true));
  Instr ccf = mk(Op::Add, Type::F32, 2);
  ccf.mods.cc = true;
  CHECK_FALSE(rfsim::func::laneSupports(ccf, &why, true));
  Instr madcc = mk(Op::Mad, Type::U32, 3);
  madcc.mods.cc = true;
  madcc.mods.mul = MulMode::Wide;
  CHECK_FALSE(rfsim::func::laneSupports(madcc, &why, true));
  Instr satu = mk(Op::Add, Type::U32, 2);
  satu.mods.sat = true;
  rejects(satu, "add.sat.u32");
  Instr wide64 = mk(Op::Mul, Type::S64, 2);
  wide64.mods.mul = MulMode::Wide;
  rejects(wide64, ".wide");
  Instr f2i = mk(Op::Cvt, Type::S32, 1, Type::F32);
  rejects(f2i, "cvt.s32.f32");
  Instr f2f = mk(Op::Cvt, Type::F32, 1, Type::F64);
  rejects(f2f, "narrowing");
  Instr i2f = mk(Op::Cvt, Type::F32, 1, Type::S32);
  rejects(i2f, "integer-to-float");
  Instr i2i = mk(Op::Cvt, Type::S32, 1, Type::S16);
  i2i.mods.round = Round::Rn;
  rejects(i2i, "cvt.rn.s32.s16");
  Instr packed = mk(Op::Cvt, Type::F16x2, 1, Type::F32);
  packed.mods.round = Round::Rn;
  rejects(packed, "two .f32 sources");
  Instr packedF64 = mk(Op::Cvt, Type::F16x2, 2, Type::F64);
  packedF64.mods.round = Round::Rn;
  rejects(packedF64, "cvt.rn.f16x2.f64");
  Instr rna = mk(Op::Cvt, Type::F32, 1, Type::F64);
  rna.mods.round = Round::Rna;
  rejects(rna, ".rna");
  Instr divap = mk(Op::Div, Type::F64, 2);
  divap.mods.approx = true;
  rejects(divap, "div.approx.f64");
  Instr sqap = mk(Op::Sqrt, Type::F64, 1);
  sqap.mods.approx = true;
  rejects(sqap, "sqrt.approx.f64");
  rejects(mk(Op::Sqrt, Type::F32, 1), "needs .approx or");
  rejects(mk(Op::Sin, Type::F64, 1), "sin.f64");
  rejects(mk(Op::Mov, Type::B128, 1), "b128");
  Instr lo = mk(Op::Setp, Type::F32, 2);
  lo.mods.cmp = Cmp::Lo;
  rejects(lo, "unsigned comparison");
  rejects(mk(Op::Setp, Type::S32, 2), "needs a comparison");
  Instr unord = mk(Op::Setp, Type::S32, 2);
  unord.mods.cmp = Cmp::Ltu;
  rejects(unord, "unordered");
  Instr h2 = mk(Op::Setp, Type::F16x2, 2);
  h2.mods.cmp = Cmp::Lt;
  rejects(h2, "packed");
  Instr lop = mk(Op::Lop3, Type::B32, 4);
  lop.ndst = 2;
  rejects(lop, "lop3");
  Instr rnd = mk(Op::Add, Type::S32, 2);
  rnd.mods.round = Round::Rn;
  rejects(rnd, "add.rn.s32");
  rejects(mk(Op::Rem, Type::F32, 2), "rem.f32");
  rejects(mk(Op::Abs, Type::U32, 1), "abs.u32");
  Instr ftz64 = mk(Op::Add, Type::F64, 2);
  ftz64.mods.ftz = true;
  rejects(ftz64, ".f64");
  Instr shf = mk(Op::Shf, Type::B32, 3);
  rejects(shf, ".l or .r");
  Instr dp2 = mk(Op::Dp2a, Type::S32, 3, Type::S32);
  rejects(dp2, ".lo or .hi");
  rejects(mk(Op::Popc, Type::B16, 1), "popc.b16");
  rejects(mk(Op::Set, Type::F64, 2, Type::F64), "destination type");
}

TEST_CASE("laneSupports accepts the common compiler output", "[semantics]") {
  auto accepts = [](Instr in) {
    std::string why;
    bool ok = supported(in, &why);
    INFO(why);
    CHECK(ok);
  };
  Instr madlo = mk(Op::Mad, Type::S32, 3);
  madlo.mods.mul = MulMode::Lo;
  accepts(madlo);
  Instr cvtrn = mk(Op::Cvt, Type::F32, 1, Type::F64);
  cvtrn.mods.round = Round::Rn;
  accepts(cvtrn);
  accepts(mk(Op::Cvt, Type::U64, 1, Type::U32));
  accepts(mk(Op::Cvt, Type::F64, 1, Type::F32));
  Instr setp = mk(Op::Setp, Type::S32, 3);
  setp.mods.cmp = Cmp::Lt;
  setp.mods.boolop = BoolOp::And;
  accepts(setp);
  Instr fmarn = mk(Op::Fma, Type::F32, 3);
  fmarn.mods.round = Round::Rn;
  fmarn.mods.ftz = true;
  accepts(fmarn);
  Instr ex2 = mk(Op::Ex2, Type::F32, 1);
  ex2.mods.approx = true;
  ex2.mods.ftz = true;
  accepts(ex2);
  Instr rcp = mk(Op::Rcp, Type::F64, 1);
  rcp.mods.round = Round::Rn;
  accepts(rcp);
  Instr divfull = mk(Op::Div, Type::F32, 2);
  divfull.mods.full = true;
  accepts(divfull);
  Instr shfr = mk(Op::Shf, Type::B32, 3);
  shfr.mods.mul = MulMode::Hi;
  shfr.mods.shift_clamp = true;
  accepts(shfr);
  accepts(mk(Op::Prmt, Type::B32, 3));
  accepts(mk(Op::Selp, Type::F32, 3));
  accepts(mk(Op::Div, Type::F64, 2));  // div.f64 with no modifier: .rn
}
