#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <sstream>

#include "common/error.h"
#include "ptx/parser.h"
#include "backend/ra_internal.h"
#include "ra_test_util.h"

using namespace rfsim;
using namespace rfsim::backend;
using namespace rfsim::backend::test;

namespace {

RaResult allocate(MFunction& f, RaOptions opt) {
  RaResult res = allocateRegisters(f, opt);
  checkAllocation(f, res, opt);
  return res;
}

RaOptions kernelOpts(uint32_t max_regs = 255) {
  RaOptions o;
  o.max_regs = max_regs;
  o.is_entry = true;
  return o;
}

size_t countRole(const MFunction& f, ptx::MRole role, int block = -1) {
  size_t n = 0;
  for (size_t b = 0; b < f.fn.blocks.size(); ++b)
    if (block < 0 || static_cast<size_t>(block) == b)
      for (const auto& in : f.fn.blocks[b].instrs) n += in.role == role;
  return n;
}

const char* const kStraight = R"(
.visible .entry k(.param .u64 p)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [p];
  ld.global.u32 %r1, [%rd1];
  ld.global.u32 %r2, [%rd1+4];
  add.s32 %r3, %r1, %r2;
  mul.lo.s32 %r4, %r3, %r1;
  sub.s32 %r5, %r4, %r2;
  st.global.u32 [%rd1+8], %r5;
  ret;
}
)";

}  // namespace

TEST_CASE("regalloc: a straight line gets low registers and reuses dead ones", "[regalloc]") {
  MFunction f = fromPtx(kStraight, "k");
  const RaResult res = allocate(f, kernelOpts());
  CHECK(res.rounds == 1);
  CHECK(res.spill_stores == 0);
  CHECK(f.spill_bytes == 0);
  uint32_t top = 0;
  for (uint32_t r : res.assign)
    if (r != ptx::kNoReg) top = std::max(top, r);
  CHECK(top <= 5);  // the pair, two live words and reuse: R0, R2..R5 at most
  CHECK(res.assign[regId(f, "%rd1")] % 2 == 0);
}

TEST_CASE("regalloc: liveness of a diamond", "[regalloc]") {
  MFunction f = fromPtx(R"(
.visible .entry k(.param .u64 p)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [p];
  ld.global.u32 %r1, [%rd1];
  setp.eq.s32 %p1, %r1, 0;
  @%p1 bra $L_else;
  add.s32 %r2, %r1, 1;
  bra.uni $L_join;
$L_else:
  mov.u32 %r2, 7;
$L_join:
  add.s32 %r3, %r2, %r1;
  st.global.u32 [%rd1], %r3;
  ret;
}
)", "k");
  const Liveness lv = computeLiveness(f);
  REQUIRE(lv.live_in.size() == 4);
  const uint32_t r1 = regId(f, "%r1"), r2 = regId(f, "%r2"), rd1 = regId(f, "%rd1");
  auto has = [](const std::vector<uint32_t>& s, uint32_t v) { return std::find(s.begin(), s.end(), v) != s.end(); };
  CHECK(lv.live_in[0].empty());
  CHECK(has(lv.live_out[0], r1));
  CHECK(has(lv.live_in[3], r2));
  CHECK(has(lv.live_in[3], rd1));
  CHECK_FALSE(has(lv.live_in[1], r2));
  CHECK(lv.live_out[3].empty());
  const RaResult res = allocate(f, kernelOpts());
  CHECK(res.spill_stores == 0);
}

namespace {

// A loop whose body keeps `inner` loaded values live at once; %a is loaded
// before the loop and only used after it.
std::string loopKernel(int inner) {
  std::ostringstream s;
  s << ".visible .entry k(.param .u64 p)\n{\n  .reg .pred %p<2>;\n  .reg .b32 %r<8>;\n  .reg .b32 %v<"
    << inner + 1 << ">;\n  .reg .b32 %a;\n  .reg .b64 %rd<3>;\n"
    << "  ld.param.u64 %rd1, [p];\n  ld.global.u32 %a, [%rd1];\n  mov.u32 %r1, 0;\n  mov.u32 %r2, 0;\n"
    << "$L_loop:\n";
  for (int i = 0; i < inner; ++i) s << "  ld.global.u32 %v" << i << ", [%rd1+" << 4 * i << "];\n";
  for (int i = 0; i < inner; ++i) s << "  add.s32 %r2, %r2, %v" << i << ";\n";
  s << "  add.s32 %r1, %r1, 1;\n  setp.lt.s32 %p1, %r1, 100;\n  @%p1 bra $L_loop;\n"
    << "  add.s32 %r3, %r2, %a;\n  st.global.u32 [%rd1], %r3;\n  ret;\n}\n";
  return s.str();
}

}  // namespace

TEST_CASE("regalloc: values live around a loop's back edge", "[regalloc]") {
  MFunction f = fromPtx(loopKernel(4), "k");
  const Liveness lv = computeLiveness(f);
  // Block 1 is the loop: the counter, the sum, the pointer and %a flow around it.
  auto has = [](const std::vector<uint32_t>& s, uint32_t v) { return std::find(s.begin(), s.end(), v) != s.end(); };
  for (const char* n : {"%r1", "%r2", "%rd1", "%a"}) {
    INFO(n);
    CHECK(has(lv.live_in[1], regId(f, n)));
    CHECK(has(lv.live_out[1], regId(f, n)));
  }
  CHECK_FALSE(has(lv.live_in[1], regId(f, "%v0")));
  const RaResult res = allocate(f, kernelOpts());
  CHECK(res.spill_stores == 0);
  // Values live together around the loop never share a register.
  std::set<uint32_t> regs;
  for (const char* n : {"%r1", "%r2", "%a"}) regs.insert(res.assign[regId(f, n)]);
  CHECK(regs.size() == 3);
}

TEST_CASE("regalloc: 64-bit values take aligned pairs that never overlap a live word", "[regalloc]") {
  MFunction f = fromPtx(R"(
.visible .entry k(.param .u64 p)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [p];
  ld.global.u32 %r1, [%rd1];
  cvt.u64.u32 %rd2, %r1;
  ld.global.u32 %r2, [%rd1+4];
  add.s64 %rd3, %rd1, %rd2;
  ld.global.u32 %r3, [%rd3];
  mul.wide.u32 %rd4, %r2, %r3;
  add.s64 %rd5, %rd4, %rd3;
  add.s32 %r4, %r1, %r2;
  st.global.u64 [%rd5], %rd2;
  st.global.u32 [%rd5+8], %r4;
  ret;
}
)", "k");
  const RaResult res = allocate(f, kernelOpts());
  for (const char* n : {"%rd1", "%rd2", "%rd3", "%rd4", "%rd5"}) {
    INFO(n);
    CHECK(res.assign[regId(f, n)] % 2 == 0);
  }
}

TEST_CASE("regalloc: pressure above max_regs spills the value used outside the loop", "[regalloc]") {
  // max_regs 18 in a kernel: R0, R2..R17 = 17 words. In the loop: 13 loaded
  // values + counter + sum + pointer pair = 17 words, plus %a around it.
  MFunction f = fromPtx(loopKernel(13), "k");
  const uint32_t a = regId(f, "%a");
  const RaResult res = allocate(f, kernelOpts(18));
  CHECK(res.spill_stores > 0);
  CHECK(res.spill_loads > 0);
  CHECK(res.spilled_values >= 1);
  CHECK(res.rounds >= 2);
  CHECK(f.spill_bytes >= 4);
  CHECK(res.assign[a] == ptx::kNoReg);  // spilled: no instruction names it any more
  // %a's spill temporaries stand for it.
  bool temp_of_a = false;
  for (uint32_t v = a + 1; v < f.fn.regs.size(); ++v) temp_of_a |= f.origin[v] == a;
  CHECK(temp_of_a);
  // Nothing is reloaded inside the loop (block 1).
  CHECK(countRole(f, ptx::MRole::Fill, 1) == 0);
  CHECK(countRole(f, ptx::MRole::Spill) == res.spill_stores);
  CHECK(countRole(f, ptx::MRole::Fill) == res.spill_loads);
  // Spill code addresses [R1 + slot] inside the spill area.
  for (const auto& bb : f.fn.blocks)
    for (const auto& in : bb.instrs)
      if (in.role == ptx::MRole::Spill || in.role == ptx::MRole::Fill) {
        CHECK(in.space == ptx::Space::Local);
        CHECK(in.src[0].regs[0] == physId(ptx::mach::kSP));
        CHECK(in.src[0].imm + 4 <= f.spill_bytes);
      }
}

TEST_CASE("regalloc: values live across a call get callee-saved registers or the stack", "[regalloc]") {
  const char* const text = R"(
.visible .func f(.param .u64 p)
{
  .reg .pred %p<3>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [p];
  ld.global.u32 %r1, [%rd1];
  ld.global.u32 %r2, [%rd1+4];
  ld.global.u32 %r3, [%rd1+8];
  setp.eq.s32 %p1, %r3, 0;
  mov.u32 %r5, %r1;
  add.s32 %r6, %r5, %r2;
  add.s32 %r7, %r6, %r3;
  selp.b32 %r8, %r7, 5, %p1;
  st.global.u32 [%rd1], %r8;
  ret;
}
)";
  for (uint32_t max_regs : {255u, 20u, 16u}) {
    INFO("max_regs " << max_regs);
    MFunction f = fromPtx(text, "f");
    insertCall(f, 0, 5);  // %r5 = call(%r1); %rd1, %r2, %r3, %p1 live across
    RaOptions opt;
    opt.max_regs = max_regs;
    opt.is_entry = false;
    const RaResult res = allocate(f, opt);
    for (const char* n : {"%rd1", "%r2", "%r3"}) {
      const uint32_t r = res.assign[regId(f, n)];
      INFO(n << " in " << r);
      CHECK((r == ptx::kNoReg || (r >= 16 && r < 32)));
    }
    // A predicate cannot survive a call in P0..P6.
    CHECK(res.preds_to_gpr >= 1);
    if (max_regs == 16) CHECK(res.spill_stores > 0);
    if (max_regs == 255) {
      CHECK(res.spill_stores == 0);
      CHECK(res.assign[regId(f, "%r1")] == 4);  // biased toward the argument register
    }
  }
}

TEST_CASE("regalloc: more than seven live predicates move to GPRs", "[regalloc]") {
  std::ostringstream s;
  s << ".visible .entry k(.param .u64 p)\n{\n  .reg .pred %p<10>;\n  .reg .b32 %r<24>;\n  .reg .b64 %rd<3>;\n"
    << "  ld.param.u64 %rd1, [p];\n  ld.global.u32 %r1, [%rd1];\n";
  for (int i = 0; i < 10; ++i) s << "  setp.gt.s32 %p" << i << ", %r1, " << i << ";\n";
  s << "  mov.u32 %r2, 0;\n";
  for (int i = 0; i < 10; ++i) s << "  @%p" << i << " add.s32 %r2, %r2, " << (i + 1) << ";\n";
  s << "  st.global.u32 [%rd1], %r2;\n  ret;\n}\n";
  MFunction f = fromPtx(s.str(), "k");
  const RaResult res = allocate(f, kernelOpts());
  CHECK(res.preds_to_gpr >= 3);
  CHECK(res.spill_stores == 0);
}

TEST_CASE("regalloc: allocation is deterministic", "[regalloc]") {
  for (int inner : {4, 14, 20}) {
    MFunction a = fromPtx(loopKernel(inner), "k"), b = fromPtx(loopKernel(inner), "k");
    const RaResult ra = allocate(a, kernelOpts(18)), rb = allocate(b, kernelOpts(18));
    CHECK(ra.assign == rb.assign);
    CHECK(ra.spill_stores == rb.spill_stores);
    CHECK(a.fn.regs.size() == b.fn.regs.size());
    CHECK(a.spill_bytes == b.spill_bytes);
  }
}

TEST_CASE("regalloc: impossible allocation names the function", "[regalloc]") {
  MFunction f = fromPtx(kStraight, "k");
  // Every usable register holds a physical value live from entry to ret.
  for (uint32_t r = 0; r < 18; ++r)
    if (r != ptx::mach::kSP) f.entry_defs.push_back(physId(r)), f.ret_uses.push_back(physId(r));
  try {
    allocateRegisters(f, kernelOpts(18));
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("k") != std::string::npos);
  }
}

TEST_CASE("regalloc: every workload function, roomy and tight, checks out", "[regalloc]") {
  namespace fs = std::filesystem;
  double worst_ms = 0;
  std::string worst_fn;
  size_t worst_instrs = 0;
  for (const auto& dir : fs::directory_iterator(fs::path(RFSIM_SOURCE_DIR) / "workloads")) {
    if (!dir.is_directory()) continue;
    for (const auto& file : fs::directory_iterator(dir.path())) {
      if (file.path().extension() != ".ptx") continue;
      const ptx::Module m = ptx::parseFile(file.path());
      for (uint32_t i = 0; i < m.functions.size(); ++i) {
        if (m.functions[i].is_extern || m.functions[i].blocks.empty()) continue;
        for (uint32_t max_regs : {255u, 32u, 24u}) {
          MFunction f = fromModule(m, i);
          RaOptions opt;
          opt.max_regs = max_regs;
          opt.is_entry = f.fn.is_entry;
          INFO(file.path().filename().string() << " " << f.fn.name << " max_regs " << max_regs);
          size_t n = 0;
          for (const auto& bb : f.fn.blocks) n += bb.instrs.size();
          const auto t0 = std::chrono::steady_clock::now();
          const RaResult res = allocateRegisters(f, opt);
          const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
          if (ms > worst_ms) worst_ms = ms, worst_fn = f.fn.name + " max_regs " + std::to_string(max_regs), worst_instrs = n;
          checkAllocation(f, res, opt);
        }
      }
    }
  }
  WARN("slowest allocation: " << worst_fn << " (" << worst_instrs << " instructions) " << worst_ms << " ms");
  CHECK(worst_ms < 500);
}

TEST_CASE("regalloc: timing probe", "[.][regalloc-timing]") {
  const ptx::Module m = ptx::parseFile(std::string(RFSIM_SOURCE_DIR) + "/workloads/regpressure/regpressure.ptx");
  for (uint32_t i = 0; i < m.functions.size(); ++i) {
    if (m.functions[i].name.find("regtile") == std::string::npos) continue;
    {
      MFunction f = fromModule(m, i);
      const Liveness lv = computeLiveness(f);
      size_t mx = 0;
      for (const auto& li : lv.live_in) {
        size_t w = 0;
        for (uint32_t v : li) w += isPhysId(v) ? 1 : f.vbits[v] == 64 ? 2 : f.vbits[v] == 1 ? 0 : 1;
        mx = std::max(mx, w);
      }
      // Highest pressure between instructions, in PTX order.
      const ra::ValueSpace vs{static_cast<uint32_t>(f.fn.regs.size())};
      const ra::BlockLive bl = ra::solveLiveness(f, vs);
      ra::InstrEffects fx;
      size_t mi = 0;
      for (size_t b = 0; b < f.fn.blocks.size(); ++b) {
        ra::BitSet live = bl.out[b];
        for (size_t k = f.fn.blocks[b].instrs.size(); k-- > 0;) {
          ra::instrEffects(f, f.fn.blocks[b].instrs[k], vs, fx);
          for (const auto& d : fx.defs) if (!d.guarded) live.reset(d.idx);
          for (uint32_t u : fx.uses) live.set(u);
          size_t w = 0;
          live.forEach([&](uint32_t x) { w += x >= vs.nv ? 1 : f.vbits[x] == 64 ? 2 : f.vbits[x] == 1 ? 0 : 1; });
          mi = std::max(mi, w);
        }
      }
      WARN(f.fn.name << " max words live at a block entry " << mx << ", between instructions " << mi);
    }
    for (int rep = 0; rep < 1; ++rep)
      for (uint32_t mr : {255u, 24u}) {
        MFunction f = fromModule(m, i);
        RaOptions opt;
        opt.max_regs = mr;
        opt.is_entry = true;
        const auto t0 = std::chrono::steady_clock::now();
        const RaResult res = allocateRegisters(f, opt);
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        WARN("max_regs " << mr << " nv " << f.fn.regs.size() << " rounds " << res.rounds << " spilled "
                         << res.spilled_values << " " << ms << " ms");
      }
  }
}
