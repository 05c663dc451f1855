#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <sstream>
#include <vector>

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
  // Every module: a workload's kernels' units and the separately compiled
  // units of its lib/ folder.
  std::vector<fs::path> files;
  for (const auto& dir : fs::directory_iterator(fs::path(RFSIM_SOURCE_DIR) / "workloads")) {
    if (!dir.is_directory()) continue;
    for (const fs::path& d : {dir.path(), dir.path() / "lib"})
      if (fs::is_directory(d))
        for (const auto& file : fs::directory_iterator(d))
          if (file.path().extension() == ".ptx") files.push_back(file.path());
  }
  for (const fs::path& file : files) {
    const ptx::Module m = ptx::parseFile(file);
    for (uint32_t i = 0; i < m.functions.size(); ++i) {
      if (m.functions[i].is_extern || m.functions[i].blocks.empty()) continue;
      for (uint32_t max_regs : {255u, 32u, 24u}) {
        MFunction f = fromModule(m, i);
        RaOptions opt;
        opt.max_regs = max_regs;
        opt.is_entry = f.fn.is_entry;
        INFO(file.filename().string() << " " << f.fn.name << " max_regs " << max_regs);
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
  WARN("slowest allocation: " << worst_fn << " (" << worst_instrs << " instructions) " << worst_ms << " ms");
  // Only a guard against a pathological slowdown (the slowest, the inlined
  // deep_calls at 32 registers, takes about 0.4 s unloaded on 2 cores); the
  // allocation times themselves are `rfsim backend`'s alloc-ms column.
  CHECK(worst_ms < 5000);
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

namespace {

// A straight-line kernel whose 32- and 64-bit values overlap at random
// (deterministic LCG), with the number of live words never above `pressure`:
// each value is a load, its only use a store. The interference graph is an
// interval graph, so `pressure` words are enough whenever pairs and singles
// do not fragment the register file.
std::string mixedWidthKernel(uint32_t seed, uint32_t pressure, uint32_t nvalues) {
  uint32_t state = seed;
  auto rnd = [&](uint32_t n) {
    state = state * 1664525u + 1013904223u;
    return (state >> 8) % n;
  };
  std::ostringstream body;
  struct Live { uint32_t id; bool wide; };
  std::vector<Live> live;
  uint32_t words = 2;  // the base address pair
  uint32_t made = 0, nr = 0, nrd = 1;
  while (made < nvalues || !live.empty()) {
    const bool wide = rnd(3) == 0;
    const uint32_t need = wide ? 2 : 1;
    if (made < nvalues && words + need <= pressure && (live.empty() || rnd(5) < 3)) {
      const uint32_t id = wide ? nrd++ : nr++;
      body << "  ld.global." << (wide ? "u64 %rd" : "u32 %r") << id << ", [%rd0+" << 8 * made << "];\n";
      live.push_back({id, wide});
      words += need;
      ++made;
    } else if (!live.empty()) {
      const size_t k = rnd(static_cast<uint32_t>(live.size()));
      const Live l = live[k];
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(k));
      body << "  st.global." << (l.wide ? "u64" : "u32") << " [%rd0+" << 8 * (made + k) << "], "
           << (l.wide ? "%rd" : "%r") << l.id << ";\n";
      words -= l.wide ? 2 : 1;
    }
  }
  std::ostringstream ptx;
  ptx << ".visible .entry k(.param .u64 p)\n{\n  .reg .b32 %r<" << nr + 1 << ">;\n  .reg .b64 %rd<" << nrd + 1
      << ">;\n  ld.param.u64 %rd0, [p];\n"
      << body.str() << "  ret;\n}\n";
  return ptx.str();
}

}  // namespace

TEST_CASE("regalloc: pairs and singles near the limit do not fragment into spills", "[regalloc]") {
  // Straight-line kernels whose peak pressure is 2 to 4 words below the
  // usable words under max_regs (R1 is the stack pointer). Each of these the
  // simplify-order colouring alone spilled (1 to 7 values): its optimistic
  // order scatters singles over the aligned pairs. Colouring in program
  // order, tried when a round would spill, needs no spill for them.
  struct Case { uint32_t seed, max_regs, slack; };
  const Case cases[] = {{1, 40, 2}, {1, 40, 4}, {1, 64, 3}, {1, 64, 4}, {2, 40, 4}, {3, 64, 4},
                        {4, 24, 2}, {4, 24, 3}, {4, 64, 3}, {5, 24, 3}, {5, 64, 4}, {7, 64, 3},
                        {7, 64, 4}, {8, 24, 3}, {8, 40, 4}, {8, 64, 4}};
  for (const Case& c : cases) {
    MFunction f = fromPtx(mixedWidthKernel(c.seed, c.max_regs - 1 - c.slack, 300), "k");
    INFO("seed " << c.seed << " max_regs " << c.max_regs << " slack " << c.slack);
    const RaResult res = allocate(f, kernelOpts(c.max_regs));
    CHECK(res.spill_stores == 0);
    CHECK(res.spilled_values == 0);
    CHECK(f.spill_bytes == 0);
  }
}

TEST_CASE("regalloc: sgemm_regtile fits in registers without spilling", "[regalloc]") {
  // The register-tiled SGEMM peaks at about 207 live words; ptxas gives it
  // 212 registers and no spills. The simplify-order colouring alone spilled 7
  // values at 253 registers.
  const ptx::Module m = ptx::parseFile(std::string(RFSIM_SOURCE_DIR) + "/workloads/regpressure/regpressure.ptx");
  bool found = false;
  for (uint32_t i = 0; i < m.functions.size(); ++i) {
    if (m.functions[i].name != "sgemm_regtile") continue;
    found = true;
    MFunction f = fromModule(m, i);
    const RaResult res = allocate(f, kernelOpts(255));
    CHECK(res.spill_stores == 0);
    CHECK(f.spill_bytes == 0);
    uint32_t top = 0;
    for (uint32_t v = 0; v < res.assign.size(); ++v)
      if (res.assign[v] != ptx::kNoReg && res.assign[v] < ptx::mach::kNumGpr)
        top = std::max(top, res.assign[v] + (f.vbits[v] == 64 ? 2 : 1));
    CHECK(top <= 212);
  }
  CHECK(found);
}

namespace {

// A Spill store or Fill load of `bytes` at spill-area offset `off`, of `value`.
ptx::Instr slotAccess(bool store, uint32_t off, uint32_t value, unsigned bytes) {
  ptx::Instr in;
  in.space = ptx::Space::Local;
  in.type = bytes == 8 ? ptx::Type::B64 : ptx::Type::B32;
  const ptx::Operand slot = stackAddr(physId(ptx::mach::kSP), off), reg = regOperand(value, 8 * bytes);
  if (store) {
    in.op = ptx::Op::St;
    in.role = ptx::MRole::Spill;
    in.nsrc = 2;
    in.src[0] = slot;
    in.src[1] = reg;
  } else {
    in.op = ptx::Op::Ld;
    in.role = ptx::MRole::Fill;
    in.ndst = 1;
    in.dst[0] = reg;
    in.nsrc = 1;
    in.src[0] = slot;
  }
  return in;
}

uint32_t offsetOfAccess(const MFunction& f, size_t block, size_t i) {
  return static_cast<uint32_t>(f.fn.blocks.at(block).instrs.at(i).src[0].imm);
}

}  // namespace

// ra::shareSpillSlots on hand-placed spill code: slots whose values are
// never live together share bytes, sizes apart, 8-byte slots first.
TEST_CASE("regalloc: spill slots of values never live together share their bytes", "[regalloc]") {
  SECTION("straight line") {
    MFunction f = fromPtx(kStraight, "k");
    const uint32_t v = regId(f, "%r1");
    auto& in = f.fn.blocks[0].instrs;
    // A (0) then B (4) one after the other; C (8) and D (12) overlapping,
    // after B; E (16, 8 bytes) apart from all.
    const std::vector<ptx::Instr> code = {
        slotAccess(true, 0, v, 4),  slotAccess(false, 0, v, 4),  slotAccess(true, 4, v, 4),
        slotAccess(false, 4, v, 4), slotAccess(true, 8, v, 4),   slotAccess(true, 12, v, 4),
        slotAccess(false, 8, v, 4), slotAccess(false, 12, v, 4), slotAccess(true, 16, v, 8),
        slotAccess(false, 16, v, 8)};
    in.insert(in.begin(), code.begin(), code.end());
    f.spill_bytes = f.spilled_bytes = 24;
    ra::shareSpillSlots(f);
    // E alone in the 8-byte group at 0; A, B and C in one 4-byte group at 8;
    // D, live with C, at 12.
    CHECK(offsetOfAccess(f, 0, 8) == 0);
    CHECK(offsetOfAccess(f, 0, 9) == 0);
    for (size_t i : {0, 1, 2, 3, 4, 6}) CHECK(offsetOfAccess(f, 0, i) == 8);
    CHECK(offsetOfAccess(f, 0, 5) == 12);
    CHECK(offsetOfAccess(f, 0, 7) == 12);
    CHECK(f.spill_bytes == 16);
    CHECK(f.spilled_bytes == 24);  // what was spilled, before sharing
  }
  SECTION("a slot live around a loop keeps its bytes from one stored inside it") {
    MFunction f = fromPtx(loopKernel(2), "k");
    REQUIRE(f.fn.blocks.size() >= 3);
    const uint32_t v = regId(f, "%r1");
    // X stored before the loop (block 0) and read after it (block 2); Y
    // stored and read inside the loop (block 1), after X's store there.
    auto& b0 = f.fn.blocks[0].instrs;
    b0.insert(b0.begin(), slotAccess(true, 0, v, 4));
    auto& b1 = f.fn.blocks[1].instrs;
    b1.insert(b1.begin(), {slotAccess(true, 4, v, 4), slotAccess(false, 4, v, 4)});
    auto& b2 = f.fn.blocks[2].instrs;
    b2.insert(b2.begin(), slotAccess(false, 0, v, 4));
    f.spill_bytes = f.spilled_bytes = 8;
    ra::shareSpillSlots(f);
    CHECK(offsetOfAccess(f, 0, 0) == 0);
    CHECK(offsetOfAccess(f, 2, 0) == 0);
    CHECK(offsetOfAccess(f, 1, 0) == 4);
    CHECK(offsetOfAccess(f, 1, 1) == 4);
    CHECK(f.spill_bytes == 8);
  }
}
