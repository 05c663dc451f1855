#include <catch2/catch.hpp>

#include "ptx_test_util.h"

using namespace rfsim;
using namespace rfsim::ptx;
using namespace rfsim::ptx::test;


// Instructions: operands, immediates, opcode and modifier decoding, PTX's
// type-checking rules.
TEST_CASE("parser: special registers", "[ptx]") {
  const Module m = parse(kernel(
      "mov.u32 %r1, %tid.x;\nmov.u32 %r1, %ntid.y;\nmov.u32 %r1, %ctaid.z;\nmov.u32 %r1, %nctaid.x;\n"
      "mov.u32 %r1, %laneid;\nmov.u32 %r1, %warpid;\nmov.u64 %rd1, %clock64;\nmov.u32 %r1, %clock;\n"
      "mov.u32 %r1, %lanemask_lt;\nmov.u32 %r1, %dynamic_smem_size;\nmov.u64 %rd1, %globaltimer;\n"
      "mov.u32 %r1, %envreg3;\nmov.u32 %r1, %smid;\n"));
  const Function& f = m.functions[0];
  const SReg want[] = {SReg::Tid, SReg::Ntid, SReg::Ctaid, SReg::Nctaid, SReg::Laneid, SReg::Warpid,
                       SReg::Clock64, SReg::Clock, SReg::LanemaskLt, SReg::DynamicSmemSize,
                       SReg::GlobalTimer, SReg::Envreg, SReg::Smid};
  const uint8_t dims[] = {0, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0};
  for (size_t i = 0; i < 13; ++i) {
    const Operand& s = instrAt(f, i).src[0];
    CHECK(s.kind == OperandKind::SReg);
    CHECK(s.sreg == want[i]);
    CHECK(s.dim == dims[i]);
  }
}

TEST_CASE("parser: immediates, with float literals as IEEE bits of the instruction type", "[ptx]") {
  const Module m = parse(kernel(
      "mov.f32 %f1, 0f3F800000;\n"
      "fma.rn.f64 %fd1, %fd2, 0d4000000000000000, %fd3;\n"
      "add.f32 %f1, %f2, 0d3FF0000000000000;\n"
      "mul.f64 %fd1, %fd2, 0f3F800000;\n"
      "mov.f32 %f1, 0;\n"
      "add.s32 %r1, %r2, -1;\n"
      "and.b32 %r1, %r2, 0xFFFFFFFF;\n"
      "mov.b32 %r1, 0f3F800000;\n"
      "mul.f32 %f1, %f2, 1.5;\n"));
  const Function& f = m.functions[0];
  CHECK(instrAt(f, 0).src[0].kind == OperandKind::Imm);
  CHECK(instrAt(f, 0).src[0].imm == 0x3F800000);
  CHECK(static_cast<uint64_t>(instrAt(f, 1).src[1].imm) == 0x4000000000000000ull);
  CHECK(instrAt(f, 2).src[1].imm == 0x3F800000);              // 0d in an f32 instruction: converted
  CHECK(static_cast<uint64_t>(instrAt(f, 3).src[1].imm) == 0x3FF0000000000000ull);  // and back
  CHECK(instrAt(f, 4).src[0].imm == 0);
  CHECK(instrAt(f, 5).src[1].imm == -1);
  CHECK(instrAt(f, 6).src[1].imm == 0xFFFFFFFFll);
  CHECK(instrAt(f, 7).src[0].imm == 0x3F800000);               // raw bits in a .b32 mov
  CHECK(instrAt(f, 8).src[1].imm == 0x3FC00000);
}

TEST_CASE("parser: setp with a second predicate, boolean combiner and negated source", "[ptx]") {
  const Module m = parse(kernel(
      "setp.lt.s32 %p1|%p2, %r1, %r2;\n"
      "setp.ge.and.f32 %p1, %f1, %f2, !%p3;\n"
      "setp.ne.s32 %p1|_, %r1, 0;\n"
      "set.lt.u32.f32 %r1, %f1, %f2;\n"));
  const Function& f = m.functions[0];
  const Instr& a = instrAt(f, 0);
  CHECK(a.op == Op::Setp);
  CHECK(a.mods.cmp == Cmp::Lt);
  CHECK(a.type == Type::S32);
  REQUIRE(a.ndst == 2);
  CHECK(a.dst[0].kind == OperandKind::Reg);
  CHECK(a.dst[1].kind == OperandKind::PredOut);
  CHECK(a.dst[1].regs[0] == regId(f, "%p2"));
  const Instr& b = instrAt(f, 1);
  CHECK(b.mods.cmp == Cmp::Ge);
  CHECK(b.mods.boolop == BoolOp::And);
  REQUIRE(b.nsrc == 3);
  CHECK(b.src[2].negate);
  CHECK(b.src[2].regs[0] == regId(f, "%p3"));
  CHECK(instrAt(f, 2).dst[1].regs[0] == kNoReg);
  const Instr& s = instrAt(f, 3);
  CHECK(s.op == Op::Set);
  CHECK(s.type == Type::U32);
  CHECK(s.type2 == Type::F32);
}

TEST_CASE("parser: atomics put the address first among the sources", "[ptx]") {
  const Module m = parse(kernel(
      "atom.global.cas.b32 %r1, [%rd1], %r2, %r3;\n"
      "atom.shared.add.u32 %r1, [%r2+4], 1;\n"
      "atom.add.f32 %f1, [%rd1], %f2;\n"
      "atom.global.exch.b64 %rd1, [%rd2], %rd3;\n"
      "red.global.add.u32 [%rd1], %r1;\n"
      "atom.acq_rel.gpu.global.max.s32 %r1, [%rd1], %r2;\n"));
  const Function& f = m.functions[0];
  const Instr& cas = instrAt(f, 0);
  CHECK(cas.op == Op::Atom);
  CHECK(cas.space == Space::Global);
  CHECK(cas.mods.atom == AtomOp::Cas);
  CHECK(cas.type == Type::B32);
  REQUIRE(cas.ndst == 1);
  CHECK(cas.dst[0].regs[0] == regId(f, "%r1"));
  REQUIRE(cas.nsrc == 3);
  CHECK(cas.src[0].kind == OperandKind::Addr);
  CHECK(cas.src[1].regs[0] == regId(f, "%r2"));
  CHECK(cas.src[2].regs[0] == regId(f, "%r3"));
  CHECK(instrAt(f, 1).space == Space::Shared);
  CHECK(instrAt(f, 1).src[1].imm == 1);
  CHECK(instrAt(f, 2).space == Space::Generic);
  CHECK(instrAt(f, 3).mods.atom == AtomOp::Exch);
  const Instr& red = instrAt(f, 4);
  CHECK(red.op == Op::Red);
  CHECK(red.ndst == 0);
  CHECK(red.nsrc == 2);
  CHECK(instrAt(f, 5).mods.relaxed_or_stronger);
  CHECK(instrAt(f, 5).mods.atom == AtomOp::Max);
}

TEST_CASE("parser: warp shuffles, votes, match and barriers", "[ptx]") {
  const Module m = parse(kernel(
      "shfl.sync.down.b32 %r1|%p1, %r2, %r3, %r4, %r5;\n"
      "shfl.sync.bfly.b32 %r1, %r2, 16, 31, -1;\n"
      "vote.sync.ballot.b32 %r1, %p1, -1;\n"
      "vote.sync.any.pred %p2, !%p1, -1;\n"
      "match.any.sync.b32 %r1, %r2, -1;\n"
      "activemask.b32 %r1;\n"
      "bar.sync 0;\n"
      "barrier.sync 1, 64;\n"
      "bar.warp.sync -1;\n"
      "bar.red.popc.u32 %r1, 0, %p1;\n"
      "bar.red.or.pred %p2, 0, %p1;\n"
      "membar.gl;\n"
      "fence.acq_rel.gpu;\n"));
  const Function& f = m.functions[0];
  const Instr& sh = instrAt(f, 0);
  CHECK(sh.op == Op::Shfl);
  CHECK(sh.mods.shfl == ShflMode::Down);
  CHECK(sh.mods.sync);
  CHECK(sh.ndst == 2);
  CHECK(sh.dst[1].kind == OperandKind::PredOut);
  CHECK(sh.nsrc == 4);
  CHECK(instrAt(f, 1).mods.shfl == ShflMode::Bfly);
  CHECK(instrAt(f, 2).mods.vote == VoteMode::Ballot);
  CHECK(instrAt(f, 3).mods.vote == VoteMode::Any);
  CHECK(instrAt(f, 3).src[0].negate);
  CHECK(instrAt(f, 4).op == Op::Match);
  CHECK(instrAt(f, 4).mods.vote == VoteMode::Any);
  CHECK(instrAt(f, 5).op == Op::Activemask);
  const Instr& bar = instrAt(f, 6);
  CHECK(bar.op == Op::Bar);
  CHECK(bar.mods.sync);
  CHECK(bar.mods.aligned);
  CHECK(bar.nsrc == 1);
  CHECK_FALSE(instrAt(f, 7).mods.aligned);
  CHECK(instrAt(f, 7).nsrc == 2);
  CHECK(instrAt(f, 8).mods.warp);
  CHECK(instrAt(f, 9).mods.red_popc);
  CHECK(instrAt(f, 9).ndst == 1);
  CHECK(instrAt(f, 10).mods.boolop == BoolOp::Or);
  CHECK(instrAt(f, 11).op == Op::Membar);
  CHECK(instrAt(f, 12).op == Op::Fence);
  CHECK(instrAt(f, 12).mods.relaxed_or_stronger);
}

TEST_CASE("parser: opcode and modifier decoding", "[ptx]") {
  struct Case {
    const char* text;
    Op op;
    Type type, type2;
  };
  const Case cases[] = {
      {"mad.lo.s32 %r1, %r2, %r3, %r4;", Op::Mad, Type::S32, Type::None},
      {"mul.wide.s32 %rd1, %r2, 4;", Op::Mul, Type::S32, Type::None},
      {"mul.hi.u32 %r1, %r2, %r3;", Op::Mul, Type::U32, Type::None},
      {"cvt.rn.f32.f64 %f1, %fd1;", Op::Cvt, Type::F32, Type::F64},
      {"cvt.rni.s32.f32 %r1, %f1;", Op::Cvt, Type::S32, Type::F32},
      {"cvt.u32.u16 %r1, %rs1;", Op::Cvt, Type::U32, Type::U16},
      {"cvt.s32.s8 %r1, %r2;", Op::Cvt, Type::S32, Type::S8},
      {"cvta.to.global.u64 %rd1, %rd2;", Op::Cvta, Type::U64, Type::None},
      {"lop3.b32 %r1, %r2, %r3, %r4, 0x96;", Op::Lop3, Type::B32, Type::None},
      {"prmt.b32 %r1, %r2, %r3, 0x5410;", Op::Prmt, Type::B32, Type::None},
      {"selp.b32 %r1, %r2, %r3, %p1;", Op::Selp, Type::B32, Type::None},
      {"brev.b32 %r1, %r2;", Op::Brev, Type::B32, Type::None},
      {"bfe.u32 %r1, %r2, 3, 5;", Op::Bfe, Type::U32, Type::None},
      {"bfi.b32 %r1, %r2, %r3, 8, 8;", Op::Bfi, Type::B32, Type::None},
      {"popc.b64 %r1, %rd1;", Op::Popc, Type::B64, Type::None},
      {"clz.b32 %r1, %r2;", Op::Clz, Type::B32, Type::None},
      {"bfind.u32 %r1, %r2;", Op::Bfind, Type::U32, Type::None},
      {"shf.l.wrap.b32 %r1, %r2, %r3, %r4;", Op::Shf, Type::B32, Type::None},
      {"rsqrt.approx.f32 %f1, %f2;", Op::Rsqrt, Type::F32, Type::None},
      {"div.rn.f64 %fd1, %fd2, %fd3;", Op::Div, Type::F64, Type::None},
      {"sqrt.rn.f32 %f1, %f2;", Op::Sqrt, Type::F32, Type::None},
      {"ex2.approx.ftz.f32 %f1, %f2;", Op::Ex2, Type::F32, Type::None},
      {"sin.approx.f32 %f1, %f2;", Op::Sin, Type::F32, Type::None},
      {"tanh.approx.f32 %f1, %f2;", Op::Tanh, Type::F32, Type::None},
      {"copysign.f32 %f1, %f2, %f3;", Op::Copysign, Type::F32, Type::None},
      {"testp.notanumber.f32 %p1, %f1;", Op::Testp, Type::F32, Type::None},
      {"abs.s32 %r1, %r2;", Op::Abs, Type::S32, Type::None},
      {"neg.f64 %fd1, %fd2;", Op::Neg, Type::F64, Type::None},
      {"min.u32 %r1, %r2, %r3;", Op::Min, Type::U32, Type::None},
      {"max.f32 %f1, %f2, %f3;", Op::Max, Type::F32, Type::None},
      {"not.pred %p1, %p2;", Op::Not, Type::Pred, Type::None},
      {"cnot.b32 %r1, %r2;", Op::Cnot, Type::B32, Type::None},
      {"and.pred %p1, %p2, %p3;", Op::And, Type::Pred, Type::None},
      {"rem.s64 %rd1, %rd2, %rd3;", Op::Rem, Type::S64, Type::None},
      {"sad.u32 %r1, %r2, %r3, %r4;", Op::Sad, Type::U32, Type::None},
      {"mul24.lo.s32 %r1, %r2, %r3;", Op::Mul24, Type::S32, Type::None},
      {"dp4a.u32.s32 %r1, %r2, %r3, %r4;", Op::Dp4a, Type::U32, Type::S32},
      {"dp2a.lo.s32.s32 %r1, %r2, %r3, %r4;", Op::Dp2a, Type::S32, Type::S32},
      {"slct.f32.s32 %f1, %f2, %f3, %r1;", Op::Slct, Type::F32, Type::S32},
      {"fns.b32 %r1, %r2, %r3, %r4;", Op::Fns, Type::B32, Type::None},
      {"nanosleep.u32 %r1;", Op::Nanosleep, Type::U32, Type::None},
      {"prefetch.global.L2 [%rd1];", Op::Prefetch, Type::None, Type::None},
      {"ldu.global.f32 %f1, [%rd1];", Op::Ldu, Type::F32, Type::None},
      {"ld.volatile.global.u32 %r1, [%rd1];", Op::Ld, Type::U32, Type::None},
      {"ld.global.cs.u8 %rs1, [%rd1];", Op::Ld, Type::U8, Type::None},
      {"st.global.u8 [%rd1], %r1;", Op::St, Type::U8, Type::None},
      {"ld.param.b16 %rs1, [k_param_0];", Op::Ld, Type::B16, Type::None},
      {"add.f16x2 %r1, %r2, %r3;", Op::Add, Type::F16x2, Type::None},
      {"fma.rn.bf16 %rs1, %rs2, %rs3, %rs1;", Op::Fma, Type::BF16, Type::None},
      {"trap;", Op::Trap, Type::None, Type::None},
      {"exit;", Op::Exit, Type::None, Type::None},
      {"brkpt;", Op::Brkpt, Type::None, Type::None},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    const Instr in = first(c.text);
    CHECK(in.op == c.op);
    CHECK(in.type == c.type);
    CHECK(in.type2 == c.type2);
  }
  CHECK(first("mad.lo.s32 %r1, %r2, %r3, %r4;").mods.mul == MulMode::Lo);
  CHECK(first("mul.wide.s32 %rd1, %r2, 4;").mods.mul == MulMode::Wide);
  CHECK(first("mul.hi.u32 %r1, %r2, %r3;").mods.mul == MulMode::Hi);
  CHECK(first("cvt.rni.s32.f32 %r1, %f1;").mods.round == Round::Rni);
  CHECK(first("cvt.rzi.f32.f32 %f1, %f2;").mods.round == Round::Rzi);
  CHECK(first("cvt.sat.f32.f32 %f1, %f2;").mods.sat);
  CHECK(first("cvt.rn.f32.f64 %f1, %fd1;").mods.round == Round::Rn);
  CHECK(first("cvta.to.global.u64 %rd1, %rd2;").mods.to);
  CHECK(first("cvta.to.global.u64 %rd1, %rd2;").space == Space::Global);
  CHECK_FALSE(first("cvta.local.u64 %rd1, %rd2;").mods.to);
  CHECK(first("rsqrt.approx.f32 %f1, %f2;").mods.approx);
  CHECK(first("div.full.f32 %f1, %f2, %f3;").mods.full);
  CHECK_FALSE(first("div.full.f32 %f1, %f2, %f3;").mods.approx);
  CHECK(first("ex2.approx.ftz.f32 %f1, %f2;").mods.ftz);
  CHECK(first("add.sat.s32 %r1, %r2, %r3;").mods.sat);
  CHECK(first("add.cc.u32 %r1, %r2, %r3;").mods.cc);
  const Instr addc = first("addc.cc.u32 %r1, %r2, %r3;");
  CHECK(addc.op == Op::Add);
  CHECK(addc.mods.carry_in);
  CHECK(addc.mods.cc);
  const Instr madc = first("madc.hi.cc.u32 %r1, %r2, %r3, %r4;");
  CHECK(madc.op == Op::Mad);
  CHECK(madc.mods.carry_in);
  CHECK(madc.mods.mul == MulMode::Hi);
  CHECK(first("subc.u32 %r1, %r2, %r3;").mods.carry_in);
  CHECK(first("shf.l.wrap.b32 %r1, %r2, %r3, %r4;").mods.mul == MulMode::Lo);
  CHECK(first("shf.r.clamp.b32 %r1, %r2, %r3, %r4;").mods.shift_clamp);
  CHECK(first("shf.r.clamp.b32 %r1, %r2, %r3, %r4;").mods.mul == MulMode::Hi);
  CHECK(first("bfind.shiftamt.u32 %r1, %r2;").mods.shiftamt);
  CHECK(first("testp.notanumber.f32 %p1, %f1;").mods.cmp == Cmp::Nan);
  CHECK(first("setp.gtu.f64 %p1, %fd1, %fd2;").mods.cmp == Cmp::Gtu);
  CHECK(first("setp.hi.u32 %p1, %r1, %r2;").mods.cmp == Cmp::Hi);
  CHECK(first("setp.lo.u32 %p1, %r1, %r2;").mods.cmp == Cmp::Lo);
  CHECK(first("ld.volatile.global.u32 %r1, [%rd1];").mods.volatile_);
  CHECK(first("ld.relaxed.gpu.global.u32 %r1, [%rd1];").mods.relaxed_or_stronger);
  CHECK(first("ld.global.L1::no_allocate.L2::256B.v2.u32 {%r1, %r2}, [%rd1];").mods.vec == 2);
  CHECK(first("ld.u32 %r1, [%rd1];").space == Space::Generic);
  CHECK(first("mov.u32 %r1, %r2;").space == Space::None);
  CHECK(first("ret;").op == Op::Ret);
}

TEST_CASE("parser: relaxed type rules of ld/st/cvt and same-size bit types", "[ptx]") {
  // A wider register for sub-word loads, stores and conversions.
  CHECK_NOTHROW(first("ld.global.u8 %r1, [%rd1];"));
  CHECK_NOTHROW(first("st.global.u16 [%rd1], %r1;"));
  CHECK_NOTHROW(first("cvt.u16.u32 %rs1, %r1;"));
  // .b types match any type of their size; signed and unsigned mix.
  CHECK_NOTHROW(first("mov.b32 %r1, %f1;"));
  CHECK_NOTHROW(first("add.s32 %s1, %r1, %s2;"));
  CHECK_NOTHROW(first("add.u64 %u1, %rd1, %u2;"));
  CHECK_NOTHROW(first("mov.f32 %f1, %r1;"));  // %r is .b32
  CHECK_NOTHROW(first("ld.global.f32 %r1, [%rd1];"));
  CHECK_NOTHROW(first("mul.wide.u16 %r1, %rs1, %rs2;"));
  CHECK_NOTHROW(first("shl.b64 %rd1, %rd2, %r1;"));
  CHECK_NOTHROW(first("cvt.f32.f16 %f1, %rs1;"));
}


TEST_CASE("parser: bmsk (emitted by nvcc for cub/thrust radix sort on sm_75)", "[ptx]") {
  const Module m = parse(kernel("bmsk.clamp.b32 %r1, %r2, %r3;\nbmsk.wrap.b32 %r1, %r2, 4;\n"));
  const Function& f = m.functions[0];
  CHECK(instrAt(f, 0).op == Op::Bmsk);
  CHECK(instrAt(f, 0).mods.shift_clamp);
  CHECK(instrAt(f, 0).nsrc == 2);
  CHECK(instrAt(f, 1).op == Op::Bmsk);
  CHECK_FALSE(instrAt(f, 1).mods.shift_clamp);
  CHECK(instrAt(f, 1).src[1].kind == OperandKind::Imm);
}
