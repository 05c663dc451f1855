// Maxwell-style dependency control (sm.dependency: barriers): the back end's
// control codes (backend/depctl.h) on hand-written kernels, and the SM that
// runs by them (sm/core/dep_barriers.h) against the scoreboard on
// microbenchmarks and workloads.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../func/machine_helpers.h"
#include "backend/backend.h"
#include "backend/depctl.h"
#include "runtime/compile_config.h"
#include "common/error.h"
#include "config/config_io.h"
#include "config/gpu_config.h"
#include "gpu/kernel_runner.h"
#include "ptx/link.h"
#include "ptx/parser.h"
#include "sm/core/dep_barriers.h"
#include "sm/core/sm_stats.h"
#include "sm/issue/scoreboard.h"
#include "sm_test_util.h"
#include "stats/stats.h"

using namespace rfsim;
using namespace rfsim::test;

namespace {

const std::string kHead = ".version 9.0\n.target sm_75\n.address_size 64\n";

config::GpuConfig withDeps(const std::string& mode, config::GpuConfig cfg = {}) {
  config::applyOverride(cfg, "sm.dependency=" + mode);
  return cfg;
}

backend::CompiledModule compileFor(const ptx::Module& m, const config::GpuConfig& cfg) {
  backend::CompileOptions o;
  rt::applyGpuConfig(o, cfg);
  return backend::compileModule(m, o);
}

uint64_t issueStat(const Timed& t, const std::string& k) {
  return t.stats.at("root.sm0.issue." + k).get<uint64_t>();
}

const ptx::Instr* findOp(const ptx::Function& fn, ptx::Op op, ptx::Space space = ptx::Space::None, int nth = 0) {
  for (const auto& bb : fn.blocks)
    for (const auto& in : bb.instrs)
      if (in.op == op && (space == ptx::Space::None || in.space == space) && nth-- == 0) return &in;
  return nullptr;
}

// y[i] = x[i] + 1 for i < n: a load, a dependent add, a store, and a branch.
const std::string kInc = kHead +
    ".visible .entry inc(.param .u64 x, .param .u64 y, .param .u32 n)\n{\n"
    ".reg .pred %p<2>;\n.reg .b32 %r<8>;\n.reg .f32 %f<4>;\n.reg .b64 %rd<8>;\n"
    "mov.u32 %r1, %tid.x;\nmov.u32 %r2, %ctaid.x;\nmov.u32 %r3, %ntid.x;\nmad.lo.s32 %r1, %r2, %r3, %r1;\n"
    "ld.param.u32 %r4, [n];\nsetp.ge.u32 %p1, %r1, %r4;\n@%p1 bra $done;\n"
    "ld.param.u64 %rd1, [x];\nld.param.u64 %rd2, [y];\ncvta.to.global.u64 %rd1, %rd1;\n"
    "cvta.to.global.u64 %rd2, %rd2;\nmul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd1, %rd3;\n"
    "add.s64 %rd5, %rd2, %rd3;\nld.global.f32 %f1, [%rd4];\nadd.f32 %f2, %f1, 0f3F800000;\n"
    "st.global.f32 [%rd5], %f2;\n$done:\nret;\n}\n";

}  // namespace

TEST_CASE("control codes: a load sets a write barrier its reader waits on", "[sm][deps]") {
  const config::GpuConfig cfg = withDeps("barriers");
  backend::CompiledModule cm = compileFor(ptx::parseString(kInc, "inc.ptx"), cfg);
  ptx::Function& fn = cm.machine.functions[cm.find("inc")->index];
  const ptx::Instr* ld = findOp(fn, ptx::Op::Ld, ptx::Space::Global);
  const ptx::Instr* add = findOp(fn, ptx::Op::Add, ptx::Space::None, 0);
  const ptx::Instr* st = findOp(fn, ptx::Op::St, ptx::Space::Global);
  REQUIRE(ld);
  REQUIRE(st);
  // The load's write barrier guards its result.
  REQUIRE(ld->wbar != 0);
  CHECK(ld->rbar != ld->wbar);
  // The f32 add that reads the load waits on it (the first add may be the
  // address arithmetic: find the one after the load).
  const ptx::Instr* user = nullptr;
  for (const auto& bb : fn.blocks)
    for (const auto& in : bb.instrs)
      if (in.op == ptx::Op::Add && in.type == ptx::Type::F32) user = &in;
  REQUIRE(user);
  REQUIRE(user->src[0].regs[0] == ld->dst[0].regs[0]);
  (void)add;
  CHECK((user->wait >> (ld->wbar - 1) & 1) == 1);
  // The store has no result, and nothing overwrites its sources before
  // the return: no barrier.
  CHECK(st->wbar == 0);
  CHECK(st->rbar == 0);
  // Every instruction has a stall count; the branch over the body waits on
  // nothing it did not need.
  for (const auto& bb : fn.blocks)
    for (const auto& in : bb.instrs) CHECK(in.stall >= 1);
  CHECK(backend::assignDependencies(fn, rt::dependencyTiming(cfg), backend::DepMode::Check).errors.empty());
}

TEST_CASE("control codes: a store whose data is overwritten next sets a read barrier", "[sm][deps]") {
  const config::GpuConfig cfg = withDeps("barriers");
  const std::string text = kHead +
      ".visible .entry war(.param .u64 y, .param .f32 a)\n{\n.reg .f32 %f<8>;\n.reg .b64 %rd<4>;\n"
      "ld.param.u64 %rd1, [y];\ncvta.to.global.u64 %rd2, %rd1;\nld.param.f32 %f1, [a];\n"
      "st.global.f32 [%rd2], %f1;\nadd.f32 %f1, %f1, %f1;\nst.global.f32 [%rd2+4], %f1;\nret;\n}\n";
  backend::CompileOptions o;
  rt::applyGpuConfig(o, cfg);
  o.schedule = false;  // keep the order written here
  backend::CompiledModule cm = backend::compileModule(ptx::parseString(text, "war.ptx"), o);
  const ptx::Function& fn = cm.machine.functions[cm.find("war")->index];
  const ptx::Instr* st0 = findOp(fn, ptx::Op::St, ptx::Space::Global, 0);
  const ptx::Instr* st1 = findOp(fn, ptx::Op::St, ptx::Space::Global, 1);
  const ptx::Instr* add = findOp(fn, ptx::Op::Add);
  REQUIRE(st0);
  REQUIRE(st1);
  REQUIRE(add);
  // The add overwrites the first store's data (the allocator gives it the
  // same register): it waits for the store's read barrier.
  REQUIRE(add->dst[0].regs[0] == st0->src[1].regs[0]);
  REQUIRE(st0->rbar != 0);
  CHECK((add->wait >> (st0->rbar - 1) & 1) == 1);
  CHECK(st1->rbar == 0);  // the return follows: nothing to guard
}

TEST_CASE("control codes: the check finds a missing wait and repair puts it back", "[sm][deps]") {
  const config::GpuConfig cfg = withDeps("barriers");
  backend::CompiledModule cm = compileFor(ptx::parseString(kInc, "inc.ptx"), cfg);
  ptx::Function& fn = cm.machine.functions[cm.find("inc")->index];
  const auto timing = rt::dependencyTiming(cfg);
  ptx::Instr* waiter = nullptr;
  for (auto& bb : fn.blocks)
    for (auto& in : bb.instrs)
      if (in.wait && !waiter && !backend::isJump(in)) waiter = &in;
  REQUIRE(waiter);
  const uint8_t had = waiter->wait;
  waiter->wait = 0;
  const backend::DepResult bad = backend::assignDependencies(fn, timing, backend::DepMode::Check);
  REQUIRE(!bad.errors.empty());
  CHECK(bad.errors[0].find("does not wait on barrier") != std::string::npos);
  const backend::DepResult fixed = backend::assignDependencies(fn, timing, backend::DepMode::Repair);
  CHECK(fixed.added >= 1);
  CHECK(waiter->wait == had);
  CHECK(backend::assignDependencies(fn, timing, backend::DepMode::Check).errors.empty());
}

TEST_CASE("control codes: a dependent fixed-latency chain stalls its latency", "[sm][deps]") {
  const config::GpuConfig cfg = withDeps("barriers");
  const std::string text = kHead +
      ".visible .entry chain(.param .u64 y, .param .f32 a)\n{\n.reg .f32 %f<8>;\n.reg .b64 %rd<4>;\n"
      "ld.param.f32 %f1, [a];\nadd.f32 %f2, %f1, %f1;\nadd.f32 %f3, %f2, %f1;\nadd.f32 %f4, %f3, %f2;\n"
      "ld.param.u64 %rd1, [y];\ncvta.to.global.u64 %rd2, %rd1;\nst.global.f32 [%rd2], %f4;\nret;\n}\n";
  backend::CompiledModule cm = compileFor(ptx::parseString(text, "chain.ptx"), cfg);
  const ptx::Function& fn = cm.machine.functions[cm.find("chain")->index];
  // Each add's reader issues fp32_add_latency cycles after it: the stalls
  // from one add to its reader add up to the latency.
  const ptx::Instr* a1 = findOp(fn, ptx::Op::Add, ptx::Space::None, 0);
  const ptx::Instr* a2 = findOp(fn, ptx::Op::Add, ptx::Space::None, 1);
  REQUIRE(a1);
  REQUIRE(a2);
  uint32_t between = 0;
  bool on = false;
  for (const auto& bb : fn.blocks)
    for (const auto& in : bb.instrs) {
      if (&in == a2) on = false;
      if (on) between += in.stall;
      if (&in == a1) on = true, between += in.stall;
    }
  CHECK(between == cfg.pipeline.fp32_add_latency);
  // Before the return nothing is pending, and every code is one the SM takes.
  CHECK(backend::assignDependencies(const_cast<ptx::Function&>(fn), rt::dependencyTiming(cfg),
                                    backend::DepMode::Check)
            .errors.empty());
}

// The issue stage's fast path asks DepBarriers::holds() every cycle and
// counts what it finds with countHold(); stall() must answer and count the
// same, through a scripted sequence of issues, reads and writes.
TEST_CASE("dependency barriers: holds() answers as stall() and keeps each barrier's count", "[sm][deps]") {
  // The program and stepper DepBarriers names in its errors (none here).
  Loaded tim(parseMachine(kInc));
  const func::LaunchSetup setup = tim.prog->setupLaunch("inc", {1, 1, 1}, {32, 1, 1},
                                                            {std::vector<uint8_t>(8), std::vector<uint8_t>(8),
                                                             std::vector<uint8_t>(4)},
                                                            0);
  rt::LaunchStats ls;
  const func::BlockStepper st(*tim.prog, setup, ls, {0, 0, 0});
  sm::Scoreboard sb(2);
  sm::IssueStats stats(nullptr, 1);
  sm::DepBarriers deps(2, *tim.prog, sb, stats);
  deps.launched(0);
  auto instr = [](uint8_t stall, uint8_t wbar, uint8_t rbar, uint8_t wait) {
    ptx::Instr in;
    in.op = ptx::Op::Add;
    in.stall = stall, in.wbar = wbar, in.rbar = rbar, in.wait = wait;
    return in;
  };
  auto dinstr = [](const ptx::Instr& in) {
    func::DInstr d;
    d.in = &in;  // no registers: the scoreboard finds no hazard
    return d;
  };
  // Both answers agree at `now`, and stall() counts what holds() found.
  auto agree = [&](const func::DInstr& d, uint64_t now) {
    const int why = deps.holds(0, *d.in, now);
    const uint64_t counts = stats.dep_stall_count_waits.get(), waits = stats.dep_barrier_waits.get();
    const sm::Stall stall = deps.stall(0, st, 0, &d, now);
    CHECK((stall == sm::Stall::None) == (why == 0));
    CHECK(stats.dep_stall_count_waits.get() - counts == (why == 1 ? 1u : 0u));
    CHECK(stats.dep_barrier_waits.get() - waits == (why == 2 ? 1u : 0u));
    return why;
  };
  const ptx::Instr load = instr(2, 1, 0, 0), load2 = instr(1, 1, 2, 0);
  const ptx::Instr use1 = instr(1, 0, 0, 0b000001), use2 = instr(1, 0, 0, 0b000010), free = instr(1, 0, 0, 0b111100);
  const func::DInstr dload = dinstr(load), dload2 = dinstr(load2), duse1 = dinstr(use1), duse2 = dinstr(use2),
                     dfree = dinstr(free);
  deps.issued(0, dload, true, 10);  // barrier 1 raised, stall count 2
  CHECK(agree(duse1, 10) == 1);
  CHECK(agree(duse1, 11) == 1);
  CHECK(agree(duse1, 12) == 2);
  CHECK(agree(dfree, 12) == 0);  // waits on barriers nobody raised
  deps.issued(0, dload2, true, 12);  // barrier 1 a second time, barrier 2 for its operands
  CHECK(agree(duse1, 13) == 2);
  CHECK(agree(duse2, 13) == 2);
  deps.read(0, 2);
  CHECK(agree(duse2, 13) == 0);
  deps.written(0, 1, dload, true);
  CHECK(agree(duse1, 13) == 2);  // still raised once
  deps.written(0, 1, dload2, true);
  CHECK(agree(duse1, 13) == 0);
  // Dual issue: after a stall count of 1 the next may go in the same cycle, one pair at most.
  const ptx::Instr one = instr(1, 0, 0, 0);
  const func::DInstr done = dinstr(one);
  deps.issued(0, done, false, 20);
  CHECK(agree(done, 20) == 0);
  deps.issued(0, done, false, 20);
  CHECK(agree(done, 20) == 1);
  CHECK(agree(done, 21) == 0);
}

TEST_CASE("barrier tracker: a free barrier first, then the one whose setter should be done soonest",
          "[sm][deps]") {
  backend::BarrierTracker t;
  ptx::Instr in;
  in.stall = 1;
  for (uint32_t b = 0; b < backend::kDepBarriers; ++b) {
    CHECK(t.get() == b);
    in.wbar = static_cast<uint8_t>(b + 1);
    // Barrier 2 guards a shared access (24 cycles), the others global ones (200).
    t.update(in, b == 2 ? backend::DepTiming::Shared : backend::DepTiming::Global, 0);
  }
  CHECK(t.get() == 2);  // 24 - 4 beats 200 - 6
  CHECK(t.get(2) != 2);
  // A wait frees it.
  in.wbar = 0;
  in.wait = 1u << 4;
  t.update(in, backend::DepTiming::Other, 0);
  CHECK(t.get() == 4);
  // A read barrier clears when its setter's operands are read: the
  // cheapest to share, however long its setter's own latency.
  backend::BarrierTracker r;
  for (uint32_t b = 0; b < backend::kDepBarriers; ++b) {
    ptx::Instr ld;
    ld.stall = 1;
    (b == 3 ? ld.rbar : ld.wbar) = static_cast<uint8_t>(b + 1);
    r.update(ld, backend::DepTiming::Global, 0);
  }
  CHECK(r.get() == 3);
}

TEST_CASE("dependency barriers: workloads give the functional output", "[sm][deps]") {
  const config::GpuConfig cfg = withDeps("barriers");
  for (const Case& c : cases()) {
    INFO(c.name);
    Loaded ref(c.ptx, "");
    const Launch lr = c.make(ref.mem);
    ref.prog->launch(lr.kernel, lr.grid, lr.block, lr.args, lr.dynamic_shared);
    const backend::CompiledModule cm =
        compileFor(ptx::parseAndLink(std::vector<std::filesystem::path>(c.ptx.begin(), c.ptx.end())), cfg);
    const uint32_t regs = cm.find(lr.kernel)->tree_regs;
    Loaded tim(cm.machine);
    const Launch lt = c.make(tim.mem);
    const Timed t = runTimed(tim, lt, cfg, regs);
    CHECK(t.out == readOutputs(ref.mem, lr));
    CHECK(issueStat(t, "dep_barrier_sets") > 0);
    CHECK(issueStat(t, "dep_stall_count_waits") > 0);
  }
}

TEST_CASE("dependency barriers: a fixed-latency chain runs at its latency as under the scoreboard", "[sm][deps]") {
  const std::string ptx = kWl + "ubench_latency/ubench_latency.ptx";
  for (const char* kernel : {"lat_fp32_fma", "lat_int_mad"}) {
    uint64_t clk[2];
    int k = 0;
    for (const char* mode : {"scoreboard", "barriers"}) {
      config::GpuConfig cfg = withDeps(mode);
      const backend::CompiledModule cm = compileFor(ptx::parseAndLink(std::vector<std::filesystem::path>{ptx}), cfg);
      Loaded ld(cm.machine);
      const uint64_t in = buffer(ld.mem, std::vector<uint8_t>(128, 0));
      const uint64_t out = buffer(ld.mem, std::vector<uint8_t>(128, 0));
      const uint64_t c = buffer(ld.mem, std::vector<uint8_t>(256, 0));
      Launch l{kernel, {1, 1, 1}, {32, 1, 1}, 0, {arg(in), arg(out), arg(c), arg(8), arg(1664525u), arg(7u)},
               {{c, 256}}};
      if (std::string(kernel) == "lat_fp32_fma") l.args[4] = arg(0.99f), l.args[5] = arg(0.01f);
      const Timed t = runTimed(ld, l, cfg, cm.find(kernel)->tree_regs);
      std::memcpy(&clk[k++], t.out[0].data(), 8);
    }
    INFO(kernel << ": %clock64 delta " << clk[0] << " (scoreboard), " << clk[1] << " (barriers)");
    // 8 passes of 64 dependent operations: the stall counts space them by
    // their latency as the scoreboard's write-backs do; the loop's branch
    // drains its pending results once a pass.
    CHECK(double(clk[1]) == Approx(double(clk[0])).epsilon(0.05));
  }
}

TEST_CASE("dependency barriers: loads past the sixth share a barrier and wait for each other", "[sm][deps]") {
  // Eight independent loads, then their sum: under the scoreboard each add
  // waits for its own load; with 6 barriers, two loads share a barrier with
  // earlier ones, and their readers' waits are at least as long.
  std::string body;
  for (int i = 0; i < 8; ++i) body += fmt::format("ld.global.u32 %r{}, [%rd2+{}];\n", 10 + i, 512 * i);
  body += "add.u32 %r20, %r10, %r11;\n";
  for (int i = 2; i < 8; ++i) body += fmt::format("add.u32 %r20, %r20, %r{};\n", 10 + i);
  const std::string text = kHead + ".visible .entry loads(.param .u64 y)\n{\n.reg .b32 %r<32>;\n.reg .b64 %rd<4>;\n"
                           "ld.param.u64 %rd1, [y];\ncvta.to.global.u64 %rd2, %rd1;\n" + body +
                           "st.global.u32 [%rd2], %r20;\nret;\n}\n";
  uint64_t cycles[2];
  uint64_t waits = 0;
  int k = 0;
  for (const char* mode : {"scoreboard", "barriers"}) {
    const config::GpuConfig cfg = withDeps(mode);
    const backend::CompiledModule cm = compileFor(ptx::parseString(text, "loads.ptx"), cfg);
    Loaded ld(cm.machine);
    std::vector<uint8_t> init(4096, 0);
    for (int i = 0; i < 8; ++i) init[512 * i] = static_cast<uint8_t>(i + 1);
    const uint64_t y = buffer(ld.mem, init);
    Launch l{"loads", {1, 1, 1}, {32, 1, 1}, 0, {arg(y)}, {{y, 4}}};
    const Timed t = runTimed(ld, l, cfg, cm.find("loads")->tree_regs);
    uint32_t sum = 0;
    std::memcpy(&sum, t.out[0].data(), 4);
    CHECK(sum == 36);
    cycles[k++] = t.r.cycles;
    if (std::string(mode) == "barriers") waits = issueStat(t, "dep_barrier_waits");
  }
  INFO("cycles: scoreboard " << cycles[0] << ", barriers " << cycles[1]);
  CHECK(cycles[1] >= cycles[0]);
  CHECK(waits > 0);
}

TEST_CASE("dependency barriers: a missing wait is a control-code error the SM names", "[sm][deps]") {
  const config::GpuConfig cfg = withDeps("barriers");
  backend::CompiledModule cm = compileFor(ptx::parseString(kInc, "inc.ptx"), cfg);
  ptx::Function& fn = cm.machine.functions[cm.find("inc")->index];
  const ptx::Instr* ld = findOp(fn, ptx::Op::Ld, ptx::Space::Global);
  REQUIRE(ld);
  const uint8_t bar = static_cast<uint8_t>(1u << (ld->wbar - 1));
  for (auto& bb : fn.blocks)
    for (auto& in : bb.instrs) in.wait = static_cast<uint8_t>(in.wait & ~bar);
  Loaded ld2(cm.machine);
  const uint64_t x = buffer(ld2.mem, std::vector<uint8_t>(256, 0));
  const uint64_t y = buffer(ld2.mem, std::vector<uint8_t>(256, 0));
  Launch l{"inc", {1, 1, 1}, {32, 1, 1}, 0, {arg(x), arg(y), arg(32u)}, {{y, 128}}};
  try {
    runTimed(ld2, l, cfg, 32);
    FAIL("no error");
  } catch (const Error& e) {
    const std::string m = e.what();
    INFO(m);
    CHECK(m.find("kernel inc") != std::string::npos);
    CHECK(m.find("control codes are wrong") != std::string::npos);
  }
}

TEST_CASE("dependency barriers need the machine program", "[sm][deps]") {
  // --virtual-regs runs PTX, which has no control codes.
  Loaded ld(ptx::parseString(kInc, "inc.ptx"));
  const uint64_t x = buffer(ld.mem, std::vector<uint8_t>(256, 0));
  Launch l{"inc", {1, 1, 1}, {32, 1, 1}, 0, {arg(x), arg(x), arg(32u)}, {{x, 4}}};
  CHECK_THROWS_WITH(runTimed(ld, l, withDeps("barriers"), 32), Catch::Contains("virtual registers"));
}
