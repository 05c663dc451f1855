// R2D2's transformation (model/mech/r2d2/transform.h) and its SM unit
// (r2d2_sm.h): the pass on a kernel written here (what goes, what is
// grouped, the three blocks), the launch-time range checks, and workloads
// whose linear values come out of the register file's rows the register ID
// calculation gives -- a wrong row or lane breaks the output.
#include <catch2/catch.hpp>

#include <string>

#include "backend/backend.h"
#include "common/error.h"
#include "mech/r2d2/transform.h"
#include "ptx/analysis/cfg.h"
#include "ptx/analysis/printer.h"
#include "ptx/isa_ext.h"
#include "ptx/parser.h"
#include "../mech_test_util.h"

using namespace rfsim;
using namespace rfsim::test;
using namespace rfsim::mech::r2d2;

namespace {

// A 2-D stencil-like kernel: out[y*w + x] = in[y*w + x - 1] + in[y*w + x + 1]
// + in[(y-1)*w + x] + in[(y+1)*w + x], x and y from the block and thread
// indices, guarded by x < w and y < h.
const char* kStencil = R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry st(.param .u64 pin, .param .u64 pout, .param .u32 pw, .param .u32 ph)
{
  .reg .pred %p<3>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<20>;
  .reg .f32 %f<6>;
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  ld.param.u32 %r1, [pw];
  ld.param.u32 %r2, [ph];
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mov.u32 %r5, %tid.x;
  mad.lo.s32 %r6, %r3, %r4, %r5;
  mov.u32 %r7, %ctaid.y;
  mov.u32 %r8, %ntid.y;
  mov.u32 %r9, %tid.y;
  mad.lo.s32 %r10, %r7, %r8, %r9;
  setp.ge.s32 %p1, %r6, %r1;
  setp.ge.s32 %p2, %r10, %r2;
  or.pred %p1, %p1, %p2;
  @%p1 bra $L_end;
  mad.lo.s32 %r11, %r10, %r1, %r6;
  mul.wide.s32 %rd3, %r11, 4;
  cvta.to.global.u64 %rd4, %rd1;
  add.s64 %rd5, %rd4, %rd3;
  ld.global.f32 %f1, [%rd5+-4];
  ld.global.f32 %f2, [%rd5+4];
  mul.wide.s32 %rd6, %r1, 4;
  sub.s64 %rd7, %rd5, %rd6;
  ld.global.f32 %f3, [%rd7];
  add.s64 %rd8, %rd5, %rd6;
  ld.global.f32 %f4, [%rd8];
  add.f32 %f5, %f1, %f2;
  add.f32 %f5, %f5, %f3;
  add.f32 %f5, %f5, %f4;
  cvta.to.global.u64 %rd9, %rd2;
  add.s64 %rd10, %rd9, %rd3;
  st.global.f32 [%rd10], %f5;
$L_end:
  ret;
}
)";

const ptx::Function& kernel(const ptx::Module& m, const std::string& name) {
  for (const auto& f : m.functions)
    if (f.name == name) return f;
  FAIL("no function " << name);
  return m.functions.front();
}

size_t countExt(const ptx::Function& fn, const char* name) {
  uint16_t id = 0;
  REQUIRE(ptx::findExtOp(name, &id));
  size_t n = 0;
  for (const auto& bb : fn.blocks)
    for (const auto& in : bb.instrs) n += in.op == ptx::Op::Ext && in.ext == id;
  return n;
}

config::GpuConfig cfgR2d2(const std::vector<std::string>& sets = {}) { return v100("r2d2", sets); }

uint64_t r2(const Run& r, const std::string& key) { return total(r, "r2d2." + key, true, "r2d2"); }

}  // namespace

TEST_CASE("r2d2 transform: a 2-D kernel's address arithmetic goes, its uses read grouped linear registers",
          "[r2d2][transform]") {
  mech::registerMechanisms();
  ptx::Module m = ptx::parseString(kStencil, "st.ptx");
  PlanTable plans;
  transformModule(m, plans);
  REQUIRE(plans.count("st"));
  const KernelPlan& p = plans.at("st");
  REQUIRE(p.transformed);
  // Linear registers: x and y (32-bit, for the guards) and one 64-bit address
  // group: in+4*(y*w+x) with -4/+4 folded into the offsets and +-4w added as a
  // coefficient register, out+4*(y*w+x) with another constant -- the same
  // index parts, so a coefficient register too.
  CHECK(p.lrs.size() == 3);
  CHECK(p.uses_with_coefficient == 3);
  CHECK(p.uses_left == 0);
  // Every instruction computing an index or an address went; what is left is
  // the parameters' loads the guards read, the guards and the loads.
  CHECK(p.removed >= 14);
  const ptx::Function& fn = kernel(m, "st");
  CHECK(fn.blocks.front().label == kCoefLabel);
  CHECK(countExt(fn, "r2d2.end") == 4);   // coefficients, thread-index (twice), block-index
  CHECK(countExt(fn, "r2d2.wait") == 1);
  // x's and y's parts differ (tid.x, tid.y), the address's is 4*tid.x + 4w*tid.y.
  CHECK(p.trs.size() == 3);
  // The range checks: the thread-index parts and the 32-bit index widened
  // by mul.wide.
  CHECK(p.checks.size() >= 4);
  // The variant compiles through the back end, the value-following checker
  // included, with the linear registers' values pinned to their classes.
  backend::CompileOptions o;
  o.check = true;
  CHECK_NOTHROW(backend::compileModule(m, o));
}

namespace {

// Registers written more than once: a loop advancing a uniform pointer p by
// 4n, read as p + 4*gid (t) by two loads; a divergent definition of the
// store's address; a loop whose step (4*gid) is not scalar.
const char* kMultiWrite = R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry mw(.param .u64 pa, .param .u64 pout, .param .u32 pn)
{
  .reg .pred %p<4>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<20>;
  .reg .f32 %f<8>;
  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pout];
  ld.param.u32 %r1, [pn];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  mul.wide.s32 %rd3, %r5, 4;
  cvta.to.global.u64 %rd4, %rd1;
  mul.wide.s32 %rd8, %r1, 4;
  mov.u64 %rd5, %rd4;
  mov.f32 %f1, 0f00000000;
  mov.u32 %r6, 0;
$L_loop:
  add.s64 %rd6, %rd5, %rd3;
  ld.global.f32 %f2, [%rd6];
  ld.global.f32 %f3, [%rd6+4];
  add.f32 %f1, %f1, %f2;
  add.f32 %f1, %f1, %f3;
  add.s64 %rd5, %rd5, %rd8;
  add.s32 %r6, %r6, 1;
  setp.lt.s32 %p1, %r6, 4;
  @%p1 bra $L_loop;
  and.b32 %r7, %r4, 1;
  setp.eq.s32 %p2, %r7, 0;
  cvta.to.global.u64 %rd9, %rd2;
  @%p2 bra $L_even;
  add.s64 %rd10, %rd9, %rd3;
  bra.uni $L_store;
$L_even:
  add.s64 %rd10, %rd3, %rd9;
$L_store:
  st.global.f32 [%rd10], %f1;
  add.s64 %rd11, %rd4, %rd3;
  mov.u32 %r8, 0;
$L_step:
  ld.global.f32 %f4, [%rd11];
  add.f32 %f1, %f1, %f4;
  add.s64 %rd11, %rd11, %rd3;
  add.s32 %r8, %r8, 1;
  setp.lt.s32 %p3, %r8, 2;
  @%p3 bra $L_step;
  st.global.f32 [%rd10+4], %f1;
  ret;
}
)";

}  // namespace

TEST_CASE("r2d2 transform: loop updates advance a uniform offset, divergent definitions move a linear register",
          "[r2d2][transform]") {
  mech::registerMechanisms();
  ptx::Module m = ptx::parseString(kMultiWrite, "mw.ptx");
  PlanTable plans;
  transformModule(m, plans);
  const KernelPlan& p = plans.at("mw");
  REQUIRE(p.transformed);
  // The loop over p: its two loads read lr + u (lr = a + 4*gid, the +4
  // folded), the add t = p + 4*gid went, p's start value is u = 0 and its
  // update advances u.
  CHECK(p.loops == 1);
  CHECK(p.uniform_uses == 2);
  // The store's address (two definitions) and the start of the loop whose
  // step is not scalar: moves from their linear registers.
  CHECK(p.divergent_moves == 3);
  CHECK(p.uses_left == 0);
  const ptx::Function& fn = kernel(m, "mw");
  const std::string text = ptx::printModule(m, {});
  CHECK(text.find("+%r2d2_u0]") != std::string::npos);
  CHECK(text.find("+%r2d2_u0+4]") != std::string::npos);
  size_t addr_addends = 0, self_updates = 0;
  for (const auto& bb : fn.blocks)
    for (const auto& in : bb.instrs) {
      addr_addends += in.mods.uaddr;
      // The non-scalar step's loop keeps its update.
      self_updates += in.op == ptx::Op::Add && in.type == ptx::Type::S64 && in.ndst == 1 && in.nsrc == 2 &&
                      in.src[0].kind == ptx::OperandKind::Reg && in.dst[0].regs[0] == in.src[0].regs[0];
    }
  CHECK(addr_addends == 2);
  CHECK(self_updates == 2);  // u += 4n, and %rd11 += 4*gid
  backend::CompileOptions o;
  o.check = true;
  CHECK_NOTHROW(backend::compileModule(m, o));
}

TEST_CASE("r2d2 transform: a kernel without linear values read by other code keeps its code, with the reason",
          "[r2d2][transform]") {
  mech::registerMechanisms();
  ptx::Module m = ptx::parseString(R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 p)
{
  .reg .b64 %rd<3>;
  .reg .b32 %r<2>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, 7;
  st.global.u32 [%rd1], %r1;
  ret;
}
)",
                                   "k.ptx");
  PlanTable plans;
  transformModule(m, plans);
  CHECK_FALSE(plans.at("k").transformed);
  CHECK(plans.at("k").reason.find("no linear value") != std::string::npos);
}

TEST_CASE("r2d2 transform: a launch whose indices overflow a 32-bit part runs the original code",
          "[r2d2][transform]") {
  mech::registerMechanisms();
  ptx::Module m = ptx::parseString(kStencil, "st.ptx");
  PlanTable plans;
  transformModule(m, plans);
  const KernelPlan& p = plans.at("st");
  std::vector<std::vector<uint8_t>> params(4);
  auto u32 = [](uint32_t v) {
    return std::vector<uint8_t>{uint8_t(v), uint8_t(v >> 8), uint8_t(v >> 16), uint8_t(v >> 24)};
  };
  params[0].assign(8, 0);
  params[1].assign(8, 0);
  params[2] = u32(1000);
  params[3] = u32(1000);
  LaunchValues lv;
  lv.ntid[0] = 32, lv.ntid[1] = 8;
  lv.nctaid[0] = 32, lv.nctaid[1] = 125;
  lv.params = &params;
  CHECK(checkLaunch(p, lv).empty());
  // A row pitch of 2^28 elements: y*w*4 leaves 32 bits in the thread-index
  // part (4w*tid.y) of the address.
  params[2] = u32(1u << 28);
  const std::string why = checkLaunch(p, lv);
  CHECK_FALSE(why.empty());
  CHECK(why.find("outside a signed 32-bit value") != std::string::npos);
}

TEST_CASE("r2d2: workloads run correctly with their linear values read from the calculated rows",
          "[mech][r2d2][timing]") {
  for (const std::string w : {"vecadd", "saxpy", "stencil3d", "conv2d", "backprop", "histogram", "spmv"}) {
    INFO(w);
    const Run r = run(cfgR2d2(), w);
    CHECK(r.passed);
    CHECK(r2(r, "transformed") >= 1);
    CHECK(r2(r, "linear_instrs") > 0);
    CHECK(r2(r, "linear_reads") > 0);
    // One coefficient block per SM that ran a block, one block-index block
    // per block.
    CHECK(r2(r, "coef_blocks") > 0);
    CHECK(r2(r, "br_blocks") >= r2(r, "coef_blocks"));
  }
}

TEST_CASE("r2d2: loop updates and divergent definitions run correctly through their linear registers",
          "[mech][r2d2][timing]") {
  // gemm and gesummv: pointers a loop advances, read with a thread's index
  // as lr + uniform offset; srad: addresses defined on each side of a branch.
  for (const std::string w : {"r2_gemm", "r2_gesummv", "r2_srad"}) {
    INFO(w);
    const Run r = run(cfgR2d2(), w);
    CHECK(r.passed);
    CHECK(r2(r, "transformed") >= 1);
    if (w != "r2_srad") CHECK(r2(r, "uniform_operands") >= 4);
    else CHECK(r2(r, "divergent_moves") >= 6);
  }
}

TEST_CASE("r2d2: the three blocks' sequencing on one, two and many blocks per SM", "[mech][r2d2][timing]") {
  // vecadd's 4000 elements in blocks of 256: 16 blocks. On one SM with 1, 2
  // and 8 blocks resident: one coefficient block, the first block's 8 warps
  // run the thread-index block, every block its block-index block.
  for (uint32_t blocks : {1u, 2u, 8u}) {
    INFO(blocks);
    const Run r = run(cfgR2d2({"gpu.num_sms=1", "sm.max_blocks=" + std::to_string(blocks)}), "vecadd");
    CHECK(r.passed);
    CHECK(r2(r, "coef_blocks") == 1);
    CHECK(r2(r, "tr_blocks") == 8);
    CHECK(r2(r, "br_blocks") == 16);
    CHECK(r2(r, "blocks_per_sm") == blocks);
    // Section 4.1: the schedulers went round robin while the linear blocks ran.
    CHECK(r2(r, "rr_switches") >= 1);
  }
  // ... unless told not to, which changes the timing, not the output.
  const Run rr = run(cfgR2d2({"gpu.num_sms=1", "sm.max_blocks=8"}), "vecadd");
  const Run gto = run(cfgR2d2({"gpu.num_sms=1", "sm.max_blocks=8", "mechanisms.r2d2.linear_round_robin=false"}),
                      "vecadd");
  CHECK(gto.passed);
  CHECK(r2(gto, "rr_switches") == 0);
  CHECK(gto.totals.cycles != rr.totals.cycles);
}

TEST_CASE("r2d2: values go through the register ID calculation -- a wrong row or lane breaks the output",
          "[mech][r2d2][timing]") {
  for (const char* fault : {"tr_row", "br_lane"}) {
    INFO(fault);
    bool broke = false;
    try {
      broke = !run(cfgR2d2({std::string("mechanisms.r2d2.fault=") + fault}), "stencil3d").passed;
    } catch (const Error&) {
      broke = true;  // an address out of every allocation
    }
    CHECK(broke);
  }
}

TEST_CASE("r2d2: the Verilated register ID calculation in lockstep on every SM changes nothing",
          "[mech][r2d2][timing][rtl]") {
  const Run a = run(cfgR2d2(), "stencil3d");
  const Run b = run(cfgR2d2({"mechanisms.r2d2.rtl=true"}), "stencil3d");
  CHECK(b.passed);
  CHECK(a.totals.cycles == b.totals.cycles);
  CHECK(r2(b, "rtl_lookups") == r2(b, "lookups"));
  CHECK(r2(b, "rtl_lookups") > 10000);
}

TEST_CASE("r2d2: a kernel whose linear registers would lower the blocks per SM runs its original code",
          "[mech][r2d2][timing]") {
  // gol_step: the blocks per SM are limited by registers and the rows of the
  // linear registers would take one block away.
  const Run r = run(cfgR2d2(), "gol");
  CHECK(r.passed);
  CHECK(r2(r, "transformed") == 0);
  CHECK(r2(r, "linear_instrs") == 0);
  // Each launch says why (stats.json: launches[].notes.r2d2).
  REQUIRE_FALSE(r.records.empty());
  for (const auto& rec : r.records) {
    REQUIRE(rec.notes.count("r2d2") == 1);
    CHECK_THAT(rec.notes.at("r2d2"), Catch::Contains("would lower the blocks per SM"));
  }
}

TEST_CASE("r2d2 baselines: the redundancy counters on the original code, which runs unchanged",
          "[mech][r2d2][timing]") {
  const Run base = run(v100("none"), "r2_backprop");
  const Run b = run(cfgR2d2({"mechanisms.r2d2.mode=baselines"}), "r2_backprop");
  REQUIRE(b.passed);
  // The observer changes nothing: the same cycles and instructions.
  CHECK(b.totals.cycles == base.totals.cycles);
  CHECK(r2(b, "observed_warp_instrs") == base.totals.warp_instrs);
  CHECK(r2(b, "observed_thread_instrs") == base.totals.thread_instrs);
  const uint64_t ow = r2(b, "observed_warp_instrs"), ot = r2(b, "observed_thread_instrs");
  // Each machine executes less; DARSIE skips no more than ideal TB (loads
  // wait for the block's stores), and DARSIE+Scalar's scalar part is of DARSIE.
  CHECK(r2(b, "wp_thread_instrs") < ot);
  CHECK(r2(b, "tb_warp_instrs") < ow);
  CHECK(r2(b, "ln_thread_instrs") < ot);
  CHECK(r2(b, "dac_warp_instrs") < ow);
  CHECK(r2(b, "darsie_warp_instrs") >= r2(b, "tb_warp_instrs"));
  CHECK(r2(b, "darsie_warp_instrs") < ow);
  CHECK(r2(b, "scalar_warp_instrs") <= r2(b, "darsie_warp_instrs"));
  CHECK(r2(b, "transformed") == 0);
}

TEST_CASE("r2d2 baselines timed: the instructions DAC and DARSIE skip are free, the output unchanged",
          "[mech][r2d2][timing]") {
  const Run base = run(v100("none"), "r2_backprop");
  for (const char* mode : {"dac", "darsie", "darsie_scalar"}) {
    INFO(mode);
    const Run r = run(cfgR2d2({std::string("mechanisms.r2d2.mode=") + mode}), "r2_backprop");
    REQUIRE(r.passed);
    // Every instruction of the original code executed: issued or elided.
    CHECK(r2(r, "observed_warp_instrs") == base.totals.warp_instrs);
    CHECK(r2(r, "elided_warp_instrs") > 0);
    const uint64_t issued = total(r, "gpu.warp_instrs");
    CHECK(issued + r2(r, "elided_warp_instrs") == base.totals.warp_instrs);
    // What the machine issues is what its counter says it executes.
    if (std::string(mode) == "dac") CHECK(issued == r2(r, "dac_warp_instrs"));
    if (std::string(mode) == "darsie") CHECK(issued == r2(r, "darsie_warp_instrs"));
    // backprop's redundant loads skipped: fewer cycles (DAC skips arithmetic
    // only, and its time moves either way on this memory-bound kernel).
    if (std::string(mode) != "dac") CHECK(r.totals.cycles < base.totals.cycles);
  }
}

TEST_CASE("r2d2 scalar pipeline: uniform-operand instructions issue and run on it, the output unchanged",
          "[mech][r2d2][timing]") {
  // The paper's baseline (repro.md 4.4): the original code, counted, with
  // the SM's scalar pipeline (InstrObserver::scalar).
  const Run base = run(v100("none"), "r2_hotspot");
  const Run sc = run(cfgR2d2({"mechanisms.r2d2.mode=baselines", "mechanisms.r2d2.scalar_pipeline=true"}), "r2_hotspot");
  REQUIRE(base.passed);
  CHECK(sc.passed);
  // Every instruction still issues (none elided); some ran on the scalar
  // pipeline, each as one lane of its unit.
  CHECK(sc.totals.warp_instrs == base.totals.warp_instrs);
  CHECK(sc.totals.thread_instrs == base.totals.thread_instrs);
  const uint64_t n = r2(sc, "scalar_pipeline_instrs");
  CHECK(n > 0);
  CHECK(r2(sc, "elided_warp_instrs") == 0);
  CHECK(total(sc, "gpu.sm.exec.thread_instrs_by_unit") < total(base, "gpu.sm.exec.thread_instrs_by_unit"));
  CHECK(total(base, "gpu.sm.exec.thread_instrs_by_unit") - total(sc, "gpu.sm.exec.thread_instrs_by_unit") <= 31 * n);
  // R2D2 on the same machine: its code on the scalar pipeline too, correct.
  const Run r = run(cfgR2d2({"mechanisms.r2d2.scalar_pipeline=true"}), "r2_hotspot");
  CHECK(r.passed);
  CHECK(r2(r, "scalar_pipeline_instrs") > 0);
  CHECK(r2(r, "transformed") > 0);
  // DARSIE+Scalar: its scalar instructions on the pipeline, not free.
  const Run ds = run(cfgR2d2({"mechanisms.r2d2.mode=darsie_scalar"}), "r2_hotspot");
  CHECK(ds.passed);
  CHECK(total(ds, "gpu.warp_instrs") == r2(ds, "darsie_warp_instrs"));
  CHECK(r2(ds, "scalar_pipeline_instrs") > 0);
}
