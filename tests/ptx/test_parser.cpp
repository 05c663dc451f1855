#include <catch2/catch.hpp>

#include <cstring>

#include "ptx/analysis/printer.h"
#include "ptx_test_util.h"

using namespace rfsim;
using namespace rfsim::ptx;
using namespace rfsim::ptx::test;

namespace {
const Symbol& sym(const Module& m, const std::string& name) {
  return m.symbols.at(m.global_symbols.at(name));
}
}  // namespace

TEST_CASE("parser: module header", "[ptx]") {
  const Module m = parse("");
  CHECK(m.version_major == 9);
  CHECK(m.version_minor == 0);
  CHECK(m.target == "sm_75");
  CHECK(m.address_size == 64);
  CHECK(m.file == "test.ptx");
  CHECK(m.functions.empty());
  const Module m2 = parseString(".version 8.5\n.target sm_90a, debug\n.address_size 32\n", "x.ptx");
  CHECK(m2.version_minor == 5);
  CHECK(m2.target == "sm_90a");
  CHECK(m2.address_size == 32);
}

TEST_CASE("parser: entry with .param list, .ptr attributes and performance directives", "[ptx]") {
  const Module m = parse(
      ".visible .entry k(\n"
      "  .param .u64 .ptr .global .align 16 k_param_0,\n"
      "  .param .u32 k_param_1,\n"
      "  .param .align 8 .b8 k_param_2[16]\n"
      ")\n"
      ".maxntid 256, 1, 1\n.reqntid 128\n.minnctapersm 4\n.maxnreg 64\n"
      "{\n.pragma \"nounroll\";\nret;\n}\n");
  REQUIRE(m.functions.size() == 1);
  const Function& f = m.functions[0];
  CHECK(f.name == "k");
  CHECK(f.is_entry);
  CHECK(f.is_visible);
  CHECK_FALSE(f.is_extern);
  CHECK(m.findFunction("k") == &f);
  REQUIRE(f.params.size() == 3);
  const Symbol& p0 = m.symbols[f.params[0]];
  CHECK(p0.name == "k_param_0");
  CHECK(p0.space == Space::Param);
  CHECK(p0.type == Type::U64);
  CHECK(p0.align == 0);  // `.ptr .global .align 16` describes the pointee
  CHECK(p0.size == 8);
  CHECK(p0.owner == 0);
  const Symbol& p2 = m.symbols[f.params[2]];
  CHECK(p2.type == Type::B8);
  CHECK(p2.count == 16);
  CHECK(p2.size == 16);
  CHECK(p2.align == 8);
  CHECK(f.maxntid[0] == 256);
  CHECK(f.maxntid[1] == 1);
  CHECK(f.reqntid[0] == 128);
  CHECK(f.reqntid[1] == 1);
  CHECK(f.minnctapersm == 4);
  CHECK(f.maxnreg == 64);
  REQUIRE(f.pragmas.size() == 1);
  CHECK(f.pragmas[0] == "nounroll");
  CHECK(m.global_symbols.count("k_param_0") == 0);  // parameters are function-scoped
}

TEST_CASE("parser: .func with return list, .noreturn, declaration then definition", "[ptx]") {
  const Module m = parse(
      ".func (.param .b32 func_retval0) f(.param .b32 f_param_0);\n"
      ".weak .func (.param .align 8 .b8 func_retval0[32]) g(.param .align 8 .b8 g_param_0[32], .param .b32 g_param_1)\n"
      "{\nret;\n}\n"
      ".func h() .noreturn\n{\ntrap;\n}\n"
      ".func (.param .b32 func_retval0) f(.param .b32 f_param_0)\n{\n"
      ".reg .b32 %r<2>;\nld.param.u32 %r1, [f_param_0];\nst.param.b32 [func_retval0+0], %r1;\nret;\n}\n");
  REQUIRE(m.functions.size() == 3);
  const Function& f = *m.findFunction("f");
  CHECK_FALSE(f.is_extern);
  CHECK_FALSE(f.is_entry);
  REQUIRE(f.rets.size() == 1);
  CHECK(m.symbols[f.rets[0]].name == "func_retval0");
  CHECK(f.loc.line == 13);  // the definition
  const Instr& ld = instrAt(f, 0);
  CHECK(ld.src[0].kind == OperandKind::Addr);
  CHECK(ld.src[0].sym == f.params[0]);
  const Instr& st = instrAt(f, 1);
  CHECK(st.src[0].sym == f.rets[0]);
  const Function& g = *m.findFunction("g");
  CHECK(g.is_visible);  // .weak
  CHECK(m.symbols[g.rets[0]].size == 32);
  CHECK(m.symbols[g.params[1]].type == Type::B32);
  CHECK(m.findFunction("h")->noreturn);
}

TEST_CASE("parser: .extern .func declarations have no body", "[ptx]") {
  const Module m = parse(
      ".extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);\n"
      ".extern .func (.param .b64 func_retval0) malloc(.param .b64 malloc_param_0);\n"
      ".extern .func free(.param .b64 free_param_0);\n");
  REQUIRE(m.functions.size() == 3);
  for (const auto& f : m.functions) {
    CHECK(f.is_extern);
    CHECK(f.blocks.empty());
  }
  CHECK(m.findFunction("vprintf")->params.size() == 2);
  CHECK(m.findFunction("free")->rets.empty());
}

TEST_CASE("parser: .reg ranges, single declarations and several names per declaration", "[ptx]") {
  const Module m = parse(
      ".entry k()\n{\n.reg .pred %p<2>;\n.reg .b32 %r<9>;\n.reg .f64 %fd1, %fd2, %x<2>;\n.reg .b64 %SP;\nret;\n}\n");
  const Function& f = m.functions[0];
  REQUIRE(f.regs.size() == 2 + 9 + 4 + 1);
  CHECK(f.regs[0].name == "%p0");
  CHECK(f.regs[0].type == Type::Pred);
  CHECK(f.regs[2].name == "%r0");
  CHECK(f.regs[10].name == "%r8");
  CHECK(f.regs[10].type == Type::B32);
  CHECK(f.regs[11].name == "%fd1");
  CHECK(f.regs[14].name == "%x1");
  CHECK(f.regs[14].type == Type::F64);
  CHECK(f.regs[15].name == "%SP");
}

TEST_CASE("parser: module variables in every space, arrays, alignment and extern shared", "[ptx]") {
  const Module m = parse(
      ".global .align 4 .u32 gcount;\n"
      ".visible .const .align 4 .f32 cc[4] = {1.5, 0f40000000, 3, 0f00000000};\n"
      ".shared .align 4 .b8 tile[1024];\n"
      ".extern .shared .align 16 .b8 sm[];\n"
      ".global .u32 grid[2][3] = {{1, 2, 3}, {4, 5, 6}};\n"
      ".global .align 1 .b8 $str[6] = {104, 105, 0};\n"
      ".global .s16 a, b[2];\n"
      ".global .f64 pi = 0d400921FB54442D18;\n");
  const Symbol& g = sym(m, "gcount");
  CHECK(g.space == Space::Global);
  CHECK(g.type == Type::U32);
  CHECK(g.size == 4);
  CHECK(g.align == 4);
  CHECK(g.owner == -1);
  CHECK(g.init.empty());
  const Symbol& c = sym(m, "cc");
  CHECK(c.space == Space::Const);
  CHECK(c.is_visible);
  REQUIRE(c.init.size() == 16);
  float f[4];
  std::memcpy(f, c.init.data(), 16);
  CHECK(f[0] == 1.5f);
  CHECK(f[1] == 2.0f);
  CHECK(f[2] == 3.0f);
  CHECK(f[3] == 0.0f);
  CHECK(sym(m, "tile").size == 1024);
  CHECK(sym(m, "tile").space == Space::Shared);
  const Symbol& sm = sym(m, "sm");
  CHECK(sm.is_extern);
  CHECK(sm.count == 0);
  CHECK(sm.size == 0);
  CHECK(sm.align == 16);
  const Symbol& grid = sym(m, "grid");
  CHECK(grid.count == 6);
  REQUIRE(grid.init.size() == 24);
  CHECK(grid.init[20] == 6);
  const Symbol& str = sym(m, "$str");
  REQUIRE(str.init.size() == 6);
  CHECK(str.init[0] == 104);
  CHECK(str.init[1] == 105);
  CHECK(str.init[5] == 0);
  CHECK(sym(m, "a").size == 2);
  CHECK(sym(m, "b").size == 4);
  uint64_t pi_bits = 0;
  std::memcpy(&pi_bits, sym(m, "pi").init.data(), 8);
  CHECK(pi_bits == 0x400921FB54442D18ull);
}

TEST_CASE("parser: function-address and variable-address initialisers fill init_addrs", "[ptx]") {
  const Module m = parse(
      ".func (.param .b32 func_retval0) _ZNK2Sq4areaEv(.param .b64 p);\n"
      ".global .align 8 .u64 _ZTV2Sq[3] = {0, 0, _ZNK2Sq4areaEv};\n"
      ".global .align 1 .b8 $str[3] = {104, 105, 0};\n"
      ".global .align 8 .u64 strs[2] = {generic($str), generic($str)+1};\n");
  const Symbol& vt = sym(m, "_ZTV2Sq");
  REQUIRE(vt.init.size() == 24);
  REQUIRE(vt.init_addrs.size() == 1);
  CHECK(vt.init_addrs[0].first == 16);
  const Symbol& fs = m.symbols[vt.init_addrs[0].second];
  CHECK(fs.is_function);
  CHECK(fs.name == "_ZNK2Sq4areaEv");
  CHECK(fs.function == 0);
  const Symbol& strs = sym(m, "strs");
  REQUIRE(strs.init_addrs.size() == 2);
  CHECK(strs.init_addrs[1].first == 8);
  CHECK(strs.init_addrs[1].second == m.global_symbols.at("$str"));
  CHECK(strs.init[8] == 1);  // the +1 offset, added to the address
  CHECK(m.global_symbols.count("_ZNK2Sq4areaEv") == 0);  // functions are not variables
}

TEST_CASE("parser: function-scope .local/.shared variables", "[ptx]") {
  const Module m = parse(
      ".entry k()\n{\n.local .align 16 .b8 __local_depot0[160];\n.shared .align 4 .f32 s[32];\n"
      ".reg .b64 %SPL;\nmov.u64 %SPL, __local_depot0;\nret;\n}\n");
  const Function& f = m.functions[0];
  REQUIRE(f.locals.size() == 2);
  const Symbol& d = m.symbols[f.locals[0]];
  CHECK(d.name == "__local_depot0");
  CHECK(d.space == Space::Local);
  CHECK(d.size == 160);
  CHECK(d.align == 16);
  CHECK(d.owner == 0);
  CHECK(m.symbols[f.locals[1]].space == Space::Shared);
  const Instr& mov = instrAt(f, 0);
  CHECK(mov.src[0].kind == OperandKind::Sym);
  CHECK(mov.src[0].sym == f.locals[0]);
}

TEST_CASE("parser: labels split blocks, branches end them, forward labels resolve", "[ptx]") {
  const Module m = parse(kernel(
      "setp.lt.s32 %p1, %r1, 2;\n"
      "@%p1 bra $L__BB0_2;\n"
      "add.s32 %r2, %r1, -1;\n"
      "bra.uni $L__BB0_3;\n"
      "$L__BB0_2:\n"
      "mov.u32 %r2, 0;\n"
      "$L__BB0_3:\n"
      "$L__BB0_4:\n"
      "@!%p1 bra $L__BB0_2;\n"
      "ret;\n"
      "add.s32 %r3, %r3, 1;\n"));
  const Function& f = m.functions[0];
  // entry | add;bra | BB0_2 | BB0_3 (empty) | BB0_4: bra | ret | add;ret
  REQUIRE(f.blocks.size() == 7);
  CHECK(f.blocks[0].label.empty());
  CHECK(f.blocks[0].instrs.size() == 2);
  CHECK(f.blocks[1].label.empty());
  CHECK(f.blocks[1].instrs.size() == 2);
  CHECK(f.blocks[2].label == "$L__BB0_2");
  CHECK(f.blocks[3].label == "$L__BB0_3");
  CHECK(f.blocks[3].instrs.empty());
  CHECK(f.blocks[4].label == "$L__BB0_4");
  const Instr& br = f.blocks[0].instrs[1];
  CHECK(br.op == Op::Bra);
  CHECK(br.guard.kind == OperandKind::Reg);
  CHECK_FALSE(br.guard.negate);
  CHECK(br.src[0].kind == OperandKind::Label);
  CHECK(br.src[0].block == 2);
  const Instr& uni = f.blocks[1].instrs[1];
  CHECK(uni.mods.uni);
  CHECK(uni.src[0].block == 3);
  const Instr& back = f.blocks[4].instrs[0];
  CHECK(back.guard.negate);
  CHECK(back.src[0].block == 2);
  CHECK(f.blocks[5].instrs.size() == 1);
  CHECK(f.blocks[6].instrs.size() == 2);
}

TEST_CASE("parser: a label at the top names the entry block", "[ptx]") {
  const Module m = parse(".entry k()\n{\n$L__top:\nbra.uni $L__top;\n}\n");
  const Function& f = m.functions[0];
  REQUIRE(f.blocks.size() == 1);
  CHECK(f.blocks[0].label == "$L__top");
  CHECK(f.blocks[0].instrs[0].src[0].block == 0);
}

TEST_CASE("parser: vector operands, sinks and vector mov", "[ptx]") {
  const Module m = parse(kernel(
      "ld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];\n"
      "st.global.v2.u32 [%rd1+8], {%r1, %r2};\n"
      "ld.shared.v4.u32 {%r1, _, %r3, _}, [%r4];\n"
      "mov.b64 %rd2, {%r1, %r2};\n"
      "mov.b64 {%r3, %r4}, %rd2;\n"
      "mov.b32 %r5, {0, %rs1};\n"
      "st.global.v2.f32 [%rd1], {%f1, 0f3F800000};\n"));
  const Function& f = m.functions[0];
  const Instr& ld = instrAt(f, 0);
  CHECK(ld.op == Op::Ld);
  CHECK(ld.space == Space::Global);
  CHECK(ld.mods.nc);
  CHECK(ld.mods.vec == 4);
  CHECK(ld.type == Type::F32);
  CHECK(ld.ndst == 1);
  CHECK(ld.dst[0].kind == OperandKind::Vec);
  CHECK(ld.dst[0].vec_n == 4);
  CHECK(ld.dst[0].regs[3] == regId(f, "%f4"));
  const Instr& st = instrAt(f, 1);
  CHECK(st.nsrc == 2);
  CHECK(st.src[0].kind == OperandKind::Addr);
  CHECK(st.src[0].imm == 8);
  CHECK(st.src[1].kind == OperandKind::Vec);
  CHECK(st.src[1].vec_n == 2);
  const Instr& sink = instrAt(f, 2);
  CHECK(sink.dst[0].regs[1] == kNoReg);
  CHECK(sink.dst[0].regs[2] == regId(f, "%r3"));
  const Instr& pack = instrAt(f, 3);
  CHECK(pack.src[0].kind == OperandKind::Vec);
  CHECK(pack.src[0].regs[0] == regId(f, "%r1"));
  const Instr& unpack = instrAt(f, 4);
  CHECK(unpack.dst[0].kind == OperandKind::Vec);
  CHECK(unpack.dst[0].vec_n == 2);
  const Instr& immvec = instrAt(f, 5);
  CHECK(immvec.src[0].regs[0] == kNoReg);
  CHECK(immvec.src[0].imm == 0);
  CHECK(immvec.src[0].regs[1] == regId(f, "%rs1"));
  const Instr& fimm = instrAt(f, 6);
  CHECK(fimm.src[1].regs[1] == kNoReg);
  CHECK(static_cast<uint64_t>(fimm.src[1].imm) == 0x3F800000ull << 32);
}

TEST_CASE("parser: immediate vector elements past 64 bits", "[ptx]") {
  // nvcc's call sequences pass constants inside 128-bit vector stores:
  // elements 2 and 3 of a .v4.b32, element 1 of a .v2.f64 / .v2.b64.
  const Module m = parse(kernel(
      "st.global.v4.b32 [%rd1], {%r1, 2, 3, 4};\n"
      "st.global.v2.f64 [%rd1], {%fd1, 0d4000000000000000};\n"
      "st.global.v2.b64 [%rd1+16], {3, 4294967296};\n"
      "st.global.v4.b16 [%rd1], {%rs1, 2, -3, 4};\n"));
  const Function& f = m.functions[0];
  const Operand& v4 = instrAt(f, 0).src[1];
  CHECK(v4.regs[0] == regId(f, "%r1"));
  CHECK(v4.regs[2] == kNoReg);
  CHECK(vecImm(v4, 1, 32) == 2);
  CHECK(vecImm(v4, 2, 32) == 3);
  CHECK(vecImm(v4, 3, 32) == 4);
  CHECK(static_cast<uint64_t>(v4.imm_hi) == (uint64_t{4} << 32 | 3));
  const Operand& d2 = instrAt(f, 1).src[1];
  CHECK(vecImm(d2, 1, 64) == 0x4000000000000000ull);
  CHECK(d2.imm == 0);
  const Operand& l2 = instrAt(f, 2).src[1];
  CHECK(vecImm(l2, 0, 64) == 3);
  CHECK(vecImm(l2, 1, 64) == 4294967296ull);
  CHECK(vecImm(instrAt(f, 3).src[1], 2, 16) == 0xfffd);
  // The printer writes them back as they were.
  CHECK(printInstr(m, f, instrAt(f, 0)).find("{%r1, 2, 3, 4}") != std::string::npos);
  CHECK(printInstr(m, f, instrAt(f, 1)).find("{%fd1, 0d4000000000000000}") != std::string::npos);
  CHECK(printInstr(m, f, instrAt(f, 2)).find("{3, 4294967296}") != std::string::npos);
  // A 256-bit access (ld/st.global.v4.b64, sm_100) keeps at most 128 bits of immediates.
  CHECK(parseError(kernel("st.global.v4.b64 [%rd1], {%rd1, %rd2, %rd3, 4};"))
            .find("immediate vector elements beyond the first 128 bits must be 0") != std::string::npos);
}

TEST_CASE("parser: address operands", "[ptx]") {
  const Module m = parse(
      ".global .align 4 .b8 g[64];\n" + kernel(
      "ld.global.u32 %r1, [%rd1+8];\n"
      "ld.global.u32 %r1, [g];\n"
      "ld.global.u32 %r1, [g+4];\n"
      "ld.global.u32 %r1, [%rd1+-4];\n"
      "ld.shared.u32 %r1, [%r2];\n"
      "ld.global.u32 %r1, [%rd1-8];\n"
      "ld.u32 %r1, [4096];\n"));
  const Function& f = m.functions[0];
  const Operand& a0 = instrAt(f, 0).src[0];
  CHECK(a0.kind == OperandKind::Addr);
  CHECK(a0.regs[0] == regId(f, "%rd1"));
  CHECK(a0.sym == kNoSym);
  CHECK(a0.imm == 8);
  const Operand& a1 = instrAt(f, 1).src[0];
  CHECK(a1.regs[0] == kNoReg);
  CHECK(a1.sym == m.global_symbols.at("g"));
  CHECK(a1.imm == 0);
  CHECK(instrAt(f, 2).src[0].imm == 4);
  CHECK(instrAt(f, 3).src[0].imm == -4);
  CHECK(instrAt(f, 4).src[0].regs[0] == regId(f, "%r2"));
  CHECK(instrAt(f, 4).space == Space::Shared);
  CHECK(instrAt(f, 5).src[0].imm == -8);
  const Instr& abs = instrAt(f, 6);
  CHECK(abs.space == Space::Generic);
  CHECK(abs.src[0].regs[0] == kNoReg);
  CHECK(abs.src[0].sym == kNoSym);
  CHECK(abs.src[0].imm == 4096);
}

TEST_CASE("parser: call sequences become function-scope params with unique names", "[ptx]") {
  const Module m = parse(
      ".func (.param .b32 func_retval0) _Z3fibi(.param .b32 _Z3fibi_param_0)\n{\n"
      ".reg .b32 %r<4>;\n"
      "ld.param.u32 %r1, [_Z3fibi_param_0];\n"
      "{ // callseq 0, 0\n.reg .b32 temp_param_reg;\n.param .b32 param0;\nst.param.b32 [param0+0], %r1;\n"
      ".param .b32 retval0;\ncall.uni (retval0), \n_Z3fibi, \n(\nparam0\n);\n"
      "ld.param.b32 %r2, [retval0+0];\n} // callseq 0\n"
      "{ // callseq 1, 0\n.reg .b32 temp_param_reg;\n.param .b32 param0;\nst.param.b32 [param0+0], %r2;\n"
      ".param .b32 retval0;\ncall.uni (retval0), _Z3fibi, (param0);\n"
      "ld.param.b32 %r3, [retval0+0];\n}\n"
      "st.param.b32 [func_retval0+0], %r3;\nret;\n}\n");
  const Function& f = m.functions[0];
  REQUIRE(f.calls.size() == 2);
  REQUIRE(f.locals.size() == 4);
  CHECK(m.symbols[f.locals[0]].name == "param0");
  CHECK(m.symbols[f.locals[1]].name == "retval0");
  CHECK(m.symbols[f.locals[2]].name == "param0$1");
  CHECK(m.symbols[f.locals[3]].name == "retval0$1");
  for (uint32_t s : f.locals) {
    CHECK(m.symbols[s].space == Space::Param);
    CHECK(m.symbols[s].owner == 0);
  }
  CHECK(f.regs.back().name == "temp_param_reg$1");
  const CallInfo& c0 = f.calls[0];
  CHECK_FALSE(c0.indirect);
  CHECK(c0.callee == 0);
  REQUIRE(c0.args.size() == 1);
  CHECK(c0.args[0] == f.locals[0]);
  REQUIRE(c0.rets.size() == 1);
  CHECK(c0.rets[0] == f.locals[1]);
  CHECK(f.calls[1].args[0] == f.locals[2]);
  const Instr& call = instrAt(f, 2);
  CHECK(call.op == Op::Call);
  CHECK(call.mods.uni);
  CHECK(call.call == 0);
  CHECK(call.src[0].kind == OperandKind::Sym);
  CHECK(m.symbols[call.src[0].sym].is_function);
  // The st in the second sequence writes the second param0.
  CHECK(instrAt(f, 4).src[0].sym == f.locals[2]);
  CHECK(instrAt(f, 3).src[0].sym == f.locals[1]);
}

TEST_CASE("parser: .callprototype and indirect calls through a register", "[ptx]") {
  const Module m = parse(
      ".func (.param .b32 func_retval0) area(.param .b64 area_param_0)\n{\nret;\n}\n"
      ".entry k(.param .u64 k_param_0)\n{\n.reg .b64 %rd<6>;\n.reg .f32 %f<2>;\n"
      "mov.u64 %rd5, area;\n"
      "{ // callseq 7, 0\n.param .b64 param0;\nst.param.b64 [param0+0], %rd1;\n.param .b32 retval0;\n"
      "prototype_7 : .callprototype (.param .b32 _) _ (.param .b64 _);\n"
      "call (retval0), \n%rd5, \n(\nparam0\n)\n, prototype_7;\n"
      "ld.param.f32 %f1, [retval0+0];\n}\n"
      "{\n.param .b64 param0;\nst.param.b64 [param0+0], %rd1;\n"
      "prototype_8 : .callprototype ()_ (.param .b64 _);\ncall %rd5, (param0), prototype_8;\n}\n"
      "ret;\n}\n");
  const Function& k = *m.findFunction("k");
  REQUIRE(m.prototypes.size() == 2);
  const Prototype& p = m.prototypes[0];
  CHECK(p.label == "prototype_7");
  REQUIRE(p.params.size() == 1);
  CHECK(p.params[0] == Type::B64);
  CHECK(p.param_sizes[0] == 8);
  REQUIRE(p.rets.size() == 1);
  CHECK(p.rets[0] == Type::B32);
  CHECK(m.prototypes[1].rets.empty());
  REQUIRE(k.calls.size() == 2);
  const CallInfo& c = k.calls[0];
  CHECK(c.indirect);
  CHECK(c.target_reg == regId(k, "%rd5"));
  CHECK(c.prototype == 0);
  CHECK(c.args.size() == 1);
  CHECK(c.rets.size() == 1);
  CHECK(k.calls[1].prototype == 1);
  CHECK(k.calls[1].rets.empty());
  const Instr& mov = instrAt(k, 0);
  CHECK(mov.src[0].kind == OperandKind::Sym);
  CHECK(m.symbols[mov.src[0].sym].is_function);
  CHECK(m.symbols[mov.src[0].sym].function == 0);
  const Instr& call = instrAt(k, 2);
  CHECK(call.src[0].kind == OperandKind::Reg);
  CHECK(call.src[0].regs[0] == regId(k, "%rd5"));
}

TEST_CASE("parser: .calltargets lists the possible callees", "[ptx]") {
  const Module m = parse(
      ".func f1()\n{\nret;\n}\n.func f2()\n{\nret;\n}\n"
      ".entry k()\n{\n.reg .b64 %rd<2>;\nFtgt: .calltargets f1, f2;\ncall %rd1, (), Ftgt;\nret;\n}\n");
  const Function& k = *m.findFunction("k");
  REQUIRE(k.calls.size() == 1);
  CHECK(k.calls[0].indirect);
  REQUIRE(k.calls[0].targets.size() == 2);
  CHECK(k.calls[0].targets[1] == 1);
}

TEST_CASE("parser: debug directives, sections and comments are skipped", "[ptx]") {
  const Module m = parse(
      "// comment\n.entry k()\n{\n.reg .b32 %r<2>;\n.loc 1 2 0\n$L__func_begin0:\n"
      ".loc 1 12 5, function_name $L__info_string0, inlined_at 1 30 10\n"
      "mov.u32 %r1, 1; /* block\ncomment */\nret;\n}\n"
      ".file 1 \"/tmp/a.cu\"\n.file 2 \"/usr/include/b.h\", 1700000000, 1234\n"
      ".section .debug_info\n{\n.b32 2455\n.b8 10\n.b64 $L__func_begin0\n{ .b8 0 }\n}\n"
      ".section .debug_macinfo { .b8 0 }\n");
  REQUIRE(m.functions.size() == 1);
  CHECK(instrCount(m.functions[0]) == 2);
  CHECK(instrAt(m.functions[0], 0).loc.line == 11);
}

TEST_CASE("parser: instruction source locations", "[ptx]") {
  const Module m = parse(kernel("  add.s32 %r1, %r2, 1;\n@%p1 bra $L;\n$L:\n"));
  CHECK(instrAt(m.functions[0], 0).loc.line == 16);
  CHECK(instrAt(m.functions[0], 0).loc.col == 3);
  CHECK(instrAt(m.functions[0], 1).loc.line == 17);
  CHECK(instrAt(m.functions[0], 1).loc.col == 1);
}

TEST_CASE("parser: inline asm scopes and shadowed registers", "[ptx]") {
  const Module m = parse(kernel(
      "{\n.reg .pred %p<2>;\n.reg .b32 %tmp;\nsetp.ne.s32 %p1, %r1, 0;\nselp.u32 %tmp, 1, 0, %p1;\nmov.b32 %r2, %tmp;\n}\n"
      "setp.eq.s32 %p1, %r1, 0;\n"));
  const Function& f = m.functions[0];
  const uint32_t inner = instrAt(f, 0).dst[0].regs[0];
  const uint32_t outer = instrAt(f, 3).dst[0].regs[0];
  CHECK(inner != outer);
  CHECK(f.regs[inner].name == "%p1$1");
  CHECK(f.regs[outer].name == "%p1");
}

TEST_CASE("parser: parseFile reads a file and reports a missing one", "[ptx]") {
  const Module m = parseFile(std::string(RFSIM_SOURCE_DIR) + "/tests/ptx/data/misc2.ptx");
  CHECK(m.findFunction("_Z3vecP7double2P6float2P4int4P5char4P6short2") != nullptr);
  CHECK_THROWS_WITH(parseFile("/nonexistent/x.ptx"), Catch::Contains("/nonexistent/x.ptx: cannot open"));
  CHECK_THROWS_WITH(parseFile(std::string(RFSIM_SOURCE_DIR) + "/tests/ptx/data"), Catch::Contains("cannot open PTX file"));
}

TEST_CASE("parser: an extern declaration and the definition of a variable merge", "[ptx]") {
  const Module m = parse(
      ".extern .global .align 4 .u32 g;\n.visible .global .align 4 .u32 g = 7;\n.extern .global .align 4 .u32 g;\n"
      ".extern .shared .align 16 .b8 sm[];\n.extern .shared .align 16 .b8 sm[];\n");
  REQUIRE(m.symbols.size() == 2);
  const Symbol& g = sym(m, "g");
  CHECK_FALSE(g.is_extern);
  CHECK(g.is_visible);
  REQUIRE(g.init.size() == 4);
  CHECK(g.init[0] == 7);
  CHECK(sym(m, "sm").is_extern);
}
