// The back end's report (backend/report.h): a small module compiled through
// compileModule, its call-graph figures and occupancy checked against values
// worked by hand from the module, and the ptxas comparison on hand-written
// reports whose ratios sit on either side of the ±25 % line.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include "backend/backend.h"
#include "backend/report.h"
#include "config/config_io.h"
#include "ptx/analysis/callgraph.h"
#include "ptx/parser.h"

using namespace rfsim;
using namespace rfsim::backend;

namespace {

// kern -> mid -> leaf. mid keeps %r1 and %r3 live across its call, so it
// must save callee-saved registers; kern uses 40000 bytes of module-scope
// shared memory (`unused` is declared but never named, so it does not count)
// and fixes its block at 128 threads.
const char* kCallChain = R"(
.version 9.0
.target sm_75
.address_size 64

.shared .align 4 .b8 tile[40000];
.shared .align 4 .b8 unused[4096];

.func (.param .b32 func_retval0) leaf(.param .b32 leaf_param_0)
{
  .reg .b32 %r<4>;
  ld.param.u32 %r1, [leaf_param_0];
  mul.lo.s32 %r2, %r1, %r1;
  add.s32 %r3, %r2, 7;
  st.param.b32 [func_retval0], %r3;
  ret;
}

.func (.param .b32 func_retval0) mid(.param .b32 mid_param_0)
{
  .reg .b32 %r<8>;
  ld.param.u32 %r1, [mid_param_0];
  add.s32 %r2, %r1, 3;
  mul.lo.s32 %r3, %r1, 5;
  {
  .param .b32 param0;
  st.param.b32 [param0], %r2;
  .param .b32 retval0;
  call.uni (retval0), leaf, (param0);
  ld.param.b32 %r4, [retval0];
  }
  add.s32 %r5, %r4, %r3;
  add.s32 %r6, %r5, %r1;
  st.param.b32 [func_retval0], %r6;
  ret;
}

.visible .entry kern(.param .u64 kern_param_0)
.reqntid 128, 1, 1
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [kern_param_0];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  st.shared.u32 [tile], %r1;
  {
  .param .b32 param0;
  st.param.b32 [param0], %r1;
  .param .b32 retval0;
  call.uni (retval0), mid, (param0);
  ld.param.b32 %r2, [retval0];
  }
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r2;
  ret;
}

.visible .entry plain(.param .u64 plain_param_0)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [plain_param_0];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  st.global.u32 [%rd2], %r1;
  ret;
}
)";

config::GpuConfig v100() { return config::loadConfig(std::string(RFSIM_SOURCE_DIR) + "/configs/v100.yaml"); }

// whole_program = false: every call clobbers what the ABI allows, so values
// live across a call need callee-saved registers.
CompiledModule compileChain(bool whole_program = false) {
  CompileOptions o;
  o.whole_program = whole_program;
  return compileModule(ptx::parseString(kCallChain, "chain.ptx"), o);
}

const CallGraphRow& row(const std::vector<CallGraphRow>& rows, const std::string& name) {
  for (const auto& r : rows)
    if (r.name == name) return r;
  FAIL("no call-graph row for " << name);
  return rows.front();
}

}  // namespace

TEST_CASE("registerRanges folds consecutive registers", "[backend][report]") {
  CHECK(registerRanges({}) == "-");
  CHECK(registerRanges({16}) == "R16");
  CHECK(registerRanges({21, 16, 17, 18, 19, 20}) == "R16-R21");
  CHECK(registerRanges({16, 17, 19, 24, 25}) == "R16-R17, R19, R24-R25");
}

TEST_CASE("a function with a call shows its callee-saved registers, and MaxStackDepth sums the path",
          "[backend][report]") {
  const CompiledModule cm = compileChain();
  const FunctionReport* kern = cm.find("kern");
  const FunctionReport* mid = cm.find("mid");
  const FunctionReport* leaf = cm.find("leaf");
  REQUIRE(kern);
  REQUIRE(mid);
  REQUIRE(leaf);

  // mid keeps two values across its call: at least two callee-saved
  // registers, from R16, saved and restored; its FRU is that count.
  REQUIRE(mid->callee_saved.size() >= 2);
  CHECK(mid->callee_saved.front() == 16);
  CHECK(mid->fru == mid->callee_saved.size());
  CHECK(mid->saves == mid->callee_saved.size());
  CHECK(mid->restores == mid->callee_saved.size());
  CHECK(registerRanges(mid->callee_saved).rfind("R16", 0) == 0);
  CHECK(functionTable(cm).find(registerRanges(mid->callee_saved)) != std::string::npos);

  // Its return address is saved too (it makes a call), and the leaf saves nothing.
  CHECK(std::count(mid->callee_saved.begin(), mid->callee_saved.end(), 20u) == 1);
  CHECK(leaf->callee_saved.empty());

  // Knowing what the leaf clobbers, mid keeps its values in registers the
  // leaf leaves alone: only the return-address pair is saved.
  const CompiledModule wp = compileChain(true);
  CHECK(wp.find("mid")->callee_saved == std::vector<uint32_t>{20, 21});

  // The chain is a single path: MaxStackDepth is the sum of FRU along it.
  CHECK(leaf->max_stack_depth == leaf->fru);
  CHECK(mid->max_stack_depth == mid->fru + leaf->fru);
  CHECK(kern->max_stack_depth == kern->fru + mid->fru + leaf->fru);
  CHECK(kern->fru == kern->regs);

  const auto rows = callGraphRows(cm);
  const CallGraphRow& k = row(rows, "kern");
  CHECK(k.callees == std::vector<std::string>{"mid"});
  CHECK(row(rows, "mid").callees == std::vector<std::string>{"leaf"});
  CHECK(row(rows, "leaf").callees.empty());
  CHECK(k.low_watermark == kern->fru + std::max(mid->fru, leaf->fru));
  CHECK(k.high_watermark == kern->max_stack_depth);
  CHECK_FALSE(k.recursive);
  const CallGraphRow& p = row(rows, "plain");
  CHECK(p.low_watermark == p.fru);  // calls nothing
  CHECK(p.high_watermark == p.fru);
}

TEST_CASE("occupancy: .reqntid, used shared memory only, and the limiter", "[backend][report]") {
  const CompiledModule cm = compileChain();
  const auto occ = occupancyRows(cm, v100(), 256);
  REQUIRE(occ.size() == 2);
  const KernelOccupancy& k = occ[0].kernel == "kern" ? occ[0] : occ[1];
  const KernelOccupancy& p = occ[0].kernel == "kern" ? occ[1] : occ[0];
  CHECK(k.threads == 128);
  CHECK(k.threads_from == "reqntid");
  CHECK(k.regs == cm.find("kern")->tree_regs);
  CHECK(k.shared == 40000);  // tile; unused is never named
  REQUIRE(k.occupancy);
  // 40000 B -> 40192 B allocated; 98304 / 40192 = 2 blocks of 4 warps.
  CHECK(k.occupancy->blocks_by_shared == 2);
  CHECK(k.occupancy->blocks == 2);
  CHECK(k.occupancy->warps == 8);
  CHECK(k.occupancy->limiters == std::vector<config::Limiter>{config::Limiter::SharedMemory});

  // plain: the default block, no shared memory. With at most 32 registers,
  // 8 blocks of 8 warps fill the SM's 64 warps; registers tie at exactly 32.
  CHECK(p.threads == 256);
  CHECK(p.threads_from == "default");
  CHECK(p.shared == 0);
  REQUIRE(p.occupancy);
  REQUIRE(p.regs <= 32);
  CHECK(p.occupancy->blocks == 8);
  CHECK(std::find(p.occupancy->limiters.begin(), p.occupancy->limiters.end(), config::Limiter::Warps) !=
        p.occupancy->limiters.end());
}

TEST_CASE("ptxas comparison: ±25 % on both sides of the line, and spill agreement", "[backend][report]") {
  CompiledModule cm;
  FunctionReport k;
  k.name = "k";
  k.entry = true;
  k.regs = 30;
  k.tree_regs = 40;  // compared for a kernel
  k.index = 0;
  FunctionReport f;
  f.name = "f";
  f.index = 1;
  f.regs = 20;
  f.callee_saved = {16, 17};
  f.spill_store_bytes = 8;
  f.spill_load_bytes = 8;
  cm.functions = {k, f};

  PtxasReport rep;
  rep.functions = {{"k", true, 32, 0, 0, 0, 0, 0, 0}, {"f", false, -1, 0, 16, 8, 8, 0, 0}};
  PtxasComparison c = comparePtxas(cm, rep);
  REQUIRE(c.rows.size() == 2);
  CHECK(c.rows[0].ours_regs == 40);
  REQUIRE(c.rows[0].ratio);
  CHECK(*c.rows[0].ratio == Approx(1.25));
  CHECK(c.rows[0].within);  // 40 vs 32: exactly 25 % over
  CHECK_FALSE(c.rows[1].ratio);  // ptxas prints no count for -rdc device functions
  CHECK(c.summary.kernels == 1);
  CHECK(c.summary.kernels_within == 1);
  CHECK(c.summary.spill_agreement);
  CHECK(c.summary.worst.empty());
  CHECK(ptxasMarkdownRows("w", c).find("| `f` | func | 20 | — | — |") != std::string::npos);

  rep.functions[0].registers = 31;  // 40 > 1.25 x 31
  rep.functions[0].spill_stores = 4;
  cm.functions[0].tree_regs = 40;
  c = comparePtxas(cm, rep);
  CHECK_FALSE(c.rows[0].within);
  CHECK(c.summary.kernels_within == 0);
  REQUIRE(c.summary.worst.size() == 1);
  CHECK(c.summary.worst[0].name == "k");
  CHECK_FALSE(c.summary.spill_agreement);  // ptxas spills in k, we do not
  CHECK(c.summary.spill_disagreements == std::vector<std::string>{"k"});
  CHECK(summaryLine(c.summary).find("0 of 1 kernels within ±25 %") == 0);

  cm.functions[0].tree_regs = 23;  // 23 < 0.75 x 31 = 23.25: under by more than 25 %
  c = comparePtxas(cm, rep);
  CHECK_FALSE(c.rows[0].within);
  cm.functions[0].tree_regs = 24;
  c = comparePtxas(cm, rep);
  CHECK(c.rows[0].within);
}

TEST_CASE("ptxas comparison: median, geometric-mean deviation and blocks per SM as ptxas'", "[backend][report]") {
  // Two kernels of 256 threads: one at ptxas' count, one at twice it.
  CompiledModule cm;
  for (uint32_t i = 0; i < 2; ++i) {
    FunctionReport k;
    k.name = i ? "k1" : "k0";
    k.entry = true;
    k.index = i;
    k.regs = k.tree_regs = i ? 64 : 32;
    cm.functions.push_back(k);
    ptx::Function fn;
    fn.name = k.name;
    fn.is_entry = true;
    cm.machine.functions.push_back(fn);
  }
  cm.callgraph = ptx::buildCallGraph(cm.machine);
  PtxasReport rep;
  rep.functions = {{"k0", true, 32, 0, 0, 0, 0, 0, 0}, {"k1", true, 32, 0, 0, 0, 0, 0, 0}};
  const config::GpuConfig cfg = v100();
  const PtxasComparison c = comparePtxas(cm, rep, {&cfg}, 256);
  const PtxasSummary& s = c.summary;
  CHECK(s.kernels == 2);
  CHECK(s.kernels_within == 1);
  CHECK(s.kernels_within50 == 1);  // 64 vs 32 is 100 % over
  CHECK(medianRatio(s) == Approx(1.5));
  CHECK(geomeanDeviation(s) == Approx(std::sqrt(2.0) - 1.0));  // exp((ln 1 + ln 2) / 2) - 1
  REQUIRE(s.occupancy.size() == 1);
  // V100, 256 threads: 32 registers -> 8 blocks (the 64-warp limit); 64 -> 4 (registers).
  CHECK(s.occupancy[0].config == cfg.name);
  CHECK(s.occupancy[0].kernels == 2);
  CHECK(s.occupancy[0].equal == 1);
  REQUIRE(s.occupancy[0].differ.size() == 1);
  CHECK(s.occupancy[0].differ[0] == "k1: 4 vs 8 blocks");
  CHECK(summaryLine(s).find("1 of 2 kernels within ±25 % of ptxas' registers (1 within ±50 %), median ratio 1.50, "
                            "geomean deviation 41.4 %; blocks per SM as ptxas': v100 1 of 2") == 0);

  // Merged over two modules: counts add, kernel names get their module's label.
  const PtxasSummary m = mergeSummaries({{"a", s}, {"b", s}});
  CHECK(m.kernels == 4);
  CHECK(m.kernel_ratios.size() == 4);
  CHECK(medianRatio(m) == Approx(1.5));
  REQUIRE(m.occupancy.size() == 1);
  CHECK(m.occupancy[0].equal == 2);
  CHECK(m.occupancy[0].differ == std::vector<std::string>{"a: k1: 4 vs 8 blocks", "b: k1: 4 vs 8 blocks"});
}
