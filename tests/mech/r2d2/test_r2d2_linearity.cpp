// R2D2's code analysis (model/mech/r2d2/linearity.h): the paper's Fig. 7
// worked example on a kernel written here, the same address in the backprop
// workload as nvcc compiled it, each transfer rule and each choice the paper
// leaves open, and the multi-write classes of Algorithm 1.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "mech/r2d2/linearity.h"
#include "ptx/parser.h"

using namespace rfsim;
using namespace rfsim::mech::r2d2;

namespace {

const char* kHeader = ".version 9.0\n.target sm_75\n.address_size 64\n";

// The register named `name` in `fn`.
uint32_t reg(const ptx::Function& fn, const std::string& name) {
  for (uint32_t r = 0; r < fn.regs.size(); ++r)
    if (fn.regs[r].name == name) return r;
  FAIL("no register " << name);
  return 0;
}

std::string vec(const Linearity& l, const ptx::Function& fn, const std::string& name) {
  const auto& v = l.value[reg(fn, name)];
  return v ? l.vecStr(*v) : "-";
}

const Definition* defOf(const Linearity& l, uint32_t r, DefKind kind) {
  for (const auto& d : l.defs)
    if (d.reg == r && d.kind == kind) return &d;
  return nullptr;
}

}  // namespace

TEST_CASE("R2D2 Fig. 7: backprop's bp_adjust_weights, every register's coefficient vector") {
  // The listing of Fig. 7 (Rodinia backprop, PTX for sm_60) with the lines
  // the figure elides written out so that %r9 is the figure's index,
  // 16*(P1+1)*by + (P1+1)*ty + tx + P1, and %rd3 the parameter P5 (oldw).
  const std::string text = std::string(kHeader) + R"(
.visible .entry bp_adjust_weights(.param .u64 P0, .param .u32 P1, .param .u64 P2, .param .u32 P3,
                                  .param .u64 P4, .param .u64 P5)
{
  .reg .b32 %r<10>;
  .reg .b64 %rd<15>;
  .reg .f32 %f<4>;
  .reg .f64 %fd<6>;
  ld.param.u64 %rd4, [P0];
  ld.param.u32 %r4, [P1];
  ld.param.u64 %rd5, [P2];
  mov.u32 %r1, %ctaid.y;
  shl.b32 %r5, %r1, 4;
  mov.u32 %r2, %tid.y;
  add.s32 %r6, %r5, %r2;
  add.s32 %r7, %r4, 1;
  mov.u32 %r3, %tid.x;
  add.s32 %r8, %r4, %r3;
  mad.lo.s32 %r9, %r6, %r7, %r8;
  ld.param.u64 %rd1, [P5];
  cvta.to.global.u64 %rd3, %rd1;
  mul.wide.s32 %rd13, %r9, 4;
  add.s64 %rd14, %rd3, %rd13;
  ld.global.f32 %f3, [%rd14+8];
  cvt.f64.f32 %fd4, %f3;
  mul.f64 %fd5, %fd4, 0d3FD3333333333333;
  cvt.rn.f32.f64 %f1, %fd5;
  st.global.f32 [%rd14+8], %f1;
  ret;
}
)";
  const ptx::Module m = ptx::parseString(text, "fig7.ptx");
  const ptx::Function& fn = *m.findFunction("bp_adjust_weights");
  const Linearity l = analyzeLinearity(m, fn);
  // Fig. 7's "Instruction Analysis" table, row by row (the paper writes
  // P5+4*P1; polynomials print by degree, then by symbol).
  CHECK(vec(l, fn, "%rd4") == "{P0, 0, 0, 0, 0, 0, 0}");
  CHECK(vec(l, fn, "%r4") == "{P1, 0, 0, 0, 0, 0, 0}");
  CHECK(vec(l, fn, "%rd5") == "{P2, 0, 0, 0, 0, 0, 0}");
  CHECK(vec(l, fn, "%r1") == "{0, 0, 0, 0, 0, 1, 0}");
  CHECK(vec(l, fn, "%r5") == "{0, 0, 0, 0, 0, 16, 0}");
  CHECK(vec(l, fn, "%r2") == "{0, 0, 1, 0, 0, 0, 0}");
  CHECK(vec(l, fn, "%r6") == "{0, 0, 1, 0, 0, 16, 0}");
  CHECK(vec(l, fn, "%r7") == "{P1 + 1, 0, 0, 0, 0, 0, 0}");
  CHECK(vec(l, fn, "%rd13") == "{4*P1, 4, 4*P1 + 4, 0, 0, 64*P1 + 64, 0}");
  CHECK(vec(l, fn, "%rd14") == "{4*P1 + P5, 4, 4*P1 + 4, 0, 0, 64*P1 + 64, 0}");
  CHECK(vec(l, fn, "%f3") == "-");
  CHECK(vec(l, fn, "%fd4") == "-");
  CHECK(vec(l, fn, "%fd5") == "-");
  // Section 3.1.3: only %rd14, read by the load and the store, is materialised.
  REQUIRE(l.combinations.size() == 1);
  CHECK(l.vecStr(l.combinations[0]) == "{4*P1 + P5, 4, 4*P1 + 4, 0, 0, 64*P1 + 64, 0}");
  CHECK(l.materialised.size() == 2);
  // Every definition is single-write; 15 of the 21 instructions are linear.
  for (const auto& d : l.defs) CHECK(d.kind == DefKind::Single);
  CHECK(l.instructions == 21);
  CHECK(l.linear_instructions == 15);
  // The index went through 32-bit arithmetic before mul.wide widened it.
  CHECK(l.value[reg(fn, "%rd14")]->narrow);
  CHECK_FALSE(l.value[reg(fn, "%rd4")]->narrow);
}

TEST_CASE("R2D2 analysis on the backprop workload: oldw[index] as nvcc 13 compiled it") {
  const ptx::Module m = ptx::parseFile(std::string(RFSIM_SOURCE_DIR) + "/workloads/backprop/backprop.ptx");
  const ptx::Function& fn = *m.findFunction("bpnn_adjust_weights");
  const Linearity l = analyzeLinearity(m, fn);
  // Our kernel's oldw is parameter 4 (Rodinia's is 5); nvcc puts the scalar
  // factor first in both mad.lo (operand order: commutative).
  CHECK(vec(l, fn, "%rd14") == "{4*P1 + P4, 4, 4*P1 + 4, 0, 0, 64*P1 + 64, 0}");
  CHECK(vec(l, fn, "%rd15") == "{4*P1 + P3, 4, 4*P1 + 4, 0, 0, 64*P1 + 64, 0}");
  // delta[tx + 1] and ly[16*by + ty + 1]: thread part only, and both parts.
  CHECK(vec(l, fn, "%rd9") == "{P0, 4, 0, 0, 0, 0, 0}");
  CHECK(vec(l, fn, "%rd12") == "{P2, 0, 4, 0, 0, 64, 0}");
  // `or` of two indices is not linear.
  CHECK(vec(l, fn, "%r13") == "-");
}

TEST_CASE("R2D2 transfer rules and the choices the paper leaves open") {
  const std::string text = std::string(kHeader) + R"(
.visible .entry rules(.param .u64 out, .param .u32 n)
{
  .reg .pred %p<3>;
  .reg .b32 %r<30>;
  .reg .b64 %rd<10>;
  .reg .f32 %f<3>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mad.lo.s32 %r5, %r3, %r4, %r2;
  mul.lo.s32 %r6, %r1, %r2;
  mul.hi.s32 %r7, %r2, 4;
  mul.lo.s32 %r8, %r2, %r3;
  shl.b32 %r9, %r2, %r1;
  shl.b32 %r10, %r2, 3;
  sub.s32 %r11, %r5, %r2;
  setp.lt.s32 %p1, %r2, 4;
  @%p1 add.s32 %r12, %r2, 1;
  cvt.u32.u64 %r13, %rd1;
  cvt.u64.u32 %rd2, %r5;
  mov.u32 %r14, %laneid;
  cvt.rn.f32.s32 %f1, %r2;
  add.f32 %f2, %f1, %f1;
  mad.lo.s32 %r15, %r1, %r4, 7;
  shl.b32 %r16, %r1, %r15;
  add.s32 %r17, %r2, %r3;
  mul.wide.u32 %rd3, %r17, %r1;
  st.global.u32 [%rd1], %r7;
  ret;
}
)";
  const ptx::Module m = ptx::parseString(text, "rules.ptx");
  const ptx::Function& fn = *m.findFunction("rules");
  const Linearity l = analyzeLinearity(m, fn);
  // ntid.x is a launch symbol; the global index is linear with it as X's factor.
  CHECK(vec(l, fn, "%r5") == "{0, 1, 0, 0, ntid.x, 0, 0}");
  // The scalar may be either operand of mul.
  CHECK(vec(l, fn, "%r6") == "{0, P1, 0, 0, 0, 0, 0}");
  // mul.hi is not linear; a product of two varying operands is not either.
  CHECK(vec(l, fn, "%r7") == "-");
  CHECK(vec(l, fn, "%r8") == "-");
  // shl by a launch symbol is not linear; by a constant it is a factor.
  CHECK(vec(l, fn, "%r9") == "-");
  CHECK(vec(l, fn, "%r10") == "{0, 8, 0, 0, 0, 0, 0}");
  // sub works elementwise: (X*ntid.x + tx) - tx.
  CHECK(vec(l, fn, "%r11") == "{0, 0, 0, 0, ntid.x, 0, 0}");
  // A guarded definition is not linear.
  CHECK(vec(l, fn, "%r12") == "-");
  // A narrowing cvt is not linear; a widening one copies.
  CHECK(vec(l, fn, "%r13") == "-");
  CHECK(vec(l, fn, "%rd2") == "{0, 1, 0, 0, ntid.x, 0, 0}");
  // Special registers other than the indices and dimensions, and floats, are not.
  CHECK(vec(l, fn, "%r14") == "-");
  CHECK(vec(l, fn, "%f2") == "-");
  // Symbolic factors multiply: P1*ntid.x + 7.
  CHECK(vec(l, fn, "%r15") == "{P1*ntid.x + 7, 0, 0, 0, 0, 0, 0}");
  // A shift by a symbolic scalar is not a constant factor.
  CHECK(vec(l, fn, "%r16") == "-");
  // mul.wide by a symbolic scalar.
  CHECK(vec(l, fn, "%rd3") == "{0, P1, 0, 0, P1, 0, 0}");
  // What non-linear instructions read is materialised: the store's address
  // %rd1 (P0), tid.x for setp, the guarded add, cvt, mul.hi and the shifts.
  std::vector<std::string> combos;
  for (const auto& c : l.combinations) combos.push_back(l.vecStr(c));
  CHECK(std::find(combos.begin(), combos.end(), "{P0, 0, 0, 0, 0, 0, 0}") != combos.end());
  CHECK(std::find(combos.begin(), combos.end(), "{0, 1, 0, 0, 0, 0, 0}") != combos.end());
  CHECK(std::find(combos.begin(), combos.end(), "{0, 1, 0, 0, ntid.x, 0, 0}") == combos.end());
}

TEST_CASE("R2D2 multi-write registers: divergent definitions, loop updates, non-scalar steps") {
  const std::string text = std::string(kHeader) + R"(
.visible .entry multi(.param .u64 out, .param .u32 n)
{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ctaid.x;
  setp.eq.s32 %p1, %r3, 0;
  @%p1 bra ELSE;
  shl.b32 %r5, %r2, 2;
  bra.uni JOIN;
ELSE:
  shl.b32 %r5, %r3, 2;
JOIN:
  mul.wide.u32 %rd2, %r5, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  shl.b32 %r6, %r2, 2;
  mov.u32 %r7, %r2;
LOOP:
  add.s32 %r6, %r6, 128;
  add.s32 %r7, %r7, %r2;
  setp.lt.u32 %p2, %r6, %r1;
  @%p2 bra LOOP;
  st.global.u32 [%rd1], %r7;
  ret;
}
)";
  const ptx::Module m = ptx::parseString(text, "multi.ptx");
  const ptx::Function& fn = *m.findFunction("multi");
  const Linearity l = analyzeLinearity(m, fn);
  const uint32_t r5 = reg(fn, "%r5"), r6 = reg(fn, "%r6"), r7 = reg(fn, "%r7");
  CHECK(l.writes[r5] == 2);
  // The if and the else write different linear values: each its own linear
  // register, moved into %r5; what reads %r5 after the join is not linear.
  int divergent = 0;
  for (const auto& d : l.defs)
    if (d.reg == r5) {
      CHECK(d.kind == DefKind::Divergent);
      ++divergent;
    }
  CHECK(divergent == 2);
  CHECK(vec(l, fn, "%rd2") == "-");
  // A loop update with a constant step: the first iteration's value and the step.
  const Definition* init = defOf(l, r6, DefKind::LoopInit);
  const Definition* upd = defOf(l, r6, DefKind::LoopUpdate);
  REQUIRE(init);
  REQUIRE(upd);
  CHECK(l.vecStr(init->vec) == "{0, 4, 0, 0, 0, 0, 0}");
  CHECK(l.vecStr(upd->vec) == "{0, 4, 0, 0, 0, 0, 0}");
  REQUIRE(upd->step);
  CHECK(l.vecStr(*upd->step) == "{128, 0, 0, 0, 0, 0, 0}");
  // A step that varies per thread keeps the original code.
  CHECK(defOf(l, r7, DefKind::LoopInit));
  CHECK(defOf(l, r7, DefKind::NonScalarStep));
  CHECK_FALSE(defOf(l, r7, DefKind::LoopUpdate));
  // Materialised: the divergent and loop-start linear registers, %rd1 for the stores.
  int mat_defs = 0;
  for (const auto& mat : l.materialised) mat_defs += mat.reg == r5 || mat.reg == r6 || mat.reg == r7;
  CHECK(mat_defs == 4);
}

TEST_CASE("R2D2 polynomials: arithmetic and printing") {
  std::vector<LaunchSymbol> syms{{LaunchSymbol::Kind::Param, 0, 0, "P0"}, {LaunchSymbol::Kind::Param, 1, 0, "P1"}};
  Poly p0 = Poly::symbol(0), p1 = Poly::symbol(1), k = Poly::constant(3);
  CHECK((p1 * k + p0).str(syms) == "P0 + 3*P1");
  CHECK(((p0 + k) * (p0 - k)).str(syms) == "P0*P0 - 9");
  CHECK((p0 - p0).isZero());
  CHECK((k * Poly::constant(-2)).constant() == -6);
  CHECK_FALSE((p0 + k).constant());
  CHECK(Poly().str(syms) == "0");
  CHECK((Poly::constant(0) - p1).str(syms) == "-P1");
}
