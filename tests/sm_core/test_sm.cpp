// The cycle-level SM (model/sm/core): real workloads give the functional
// model's output under timing; microkernels with known timing; the deadlock
// watchdog; determinism.
#include <catch2/catch.hpp>

#include <cstring>
#include <functional>
#include <memory>

#include <fmt/format.h>

#include "../func/machine_helpers.h"
#include "backend/backend.h"
#include "sm_test_util.h"
#include "common/error.h"
#include "config/gpu_config.h"
#include "func/memory.h"
#include "func/program.h"
#include "ptx/parser.h"
#include "gpu/gpu_top.h"
#include "gpu/kernel_runner.h"
#include "mem/tlm/hierarchy.h"

using namespace rfsim;
using namespace rfsim::test;


TEST_CASE("workloads under timing give the functional output", "[sm]") {
  const config::GpuConfig cfg;
  for (const Case& c : cases()) {
    Loaded ref(c.ptx, "");
    const Launch lr = c.make(ref.mem);
    ref.prog->launch(lr.kernel, lr.grid, lr.block, lr.args, lr.dynamic_shared);
    Loaded tim(c.ptx, lr.kernel);
    const Launch lt = c.make(tim.mem);
    const Timed t = runTimed(tim, lt, cfg, tim.tree_regs);
    INFO(c.name);
    CHECK(t.out == readOutputs(ref.mem, lr));
    CHECK(t.r.cycles > 0);
    WARN(c.name << ": " << t.r.cycles << " cycles, " << t.r.warp_instrs << " warp instrs, IPC "
                << double(t.r.warp_instrs) / double(t.r.cycles) << ", " << t.r.host_seconds << " s host");
  }
}

TEST_CASE("timed runs are deterministic", "[sm]") {
  const config::GpuConfig cfg;
  for (const Case& c : cases()) {
    if (c.name != "sgemm" && c.name != "histogram") continue;
    Loaded probe(c.ptx, ""), a(c.ptx, c.make(probe.mem).kernel), b(c.ptx, c.make(probe.mem).kernel);
    const Launch la = c.make(a.mem), lb = c.make(b.mem);
    const Timed ta = runTimed(a, la, cfg, a.tree_regs), tb = runTimed(b, lb, cfg, b.tree_regs);
    CHECK(ta.r.cycles == tb.r.cycles);
    CHECK(ta.stats == tb.stats);
  }
}

namespace {

const std::string kHead = ".version 9.0\n.target sm_75\n.address_size 64\n";

std::string chain(unsigned n, const char* a, const char* b, const char* c, const char* d) {
  std::string s = "  mov.f32 %R2, 0f3F800000;\n  mov.f32 %R3, 0f3F800000;\n  mov.f32 %R5, 0f3F800000;\n"
                  "  mov.f32 %R18, 0f3F800000;\n  mov.f32 %R20, 0f3F800000;\n";
  for (unsigned i = 0; i < n; ++i)
    s += i % 2 == 0 ? fmt::format("  add.f32 %R4, {}, {};\n", a, b) : fmt::format("  add.f32 %R2, {}, {};\n", c, d);
  return s + "  st.global.f32 [%RD8], %R2;\n";
}

config::GpuConfig microConfig() {
  config::GpuConfig cfg;
  cfg.pipeline.l1i_miss_latency = 1;  // fetch out of the way: latencies alone
  // One pool of units and 16 shared banks without reuse, the setting these
  // cases are computed for; the sub-core and reuse cases set their own.
  cfg.sm.sub_cores = 1;
  cfg.regfile.num_banks = 16;
  cfg.regfile.operand_reuse = false;
  return cfg;
}

uint64_t stat(const Timed& t, const std::string& k) { return t.stats.at("root.sm0." + smStat(k)).get<uint64_t>(); }

}  // namespace

TEST_CASE("a dependent fp32 add chain issues every fp32_add_latency cycles", "[sm]") {
  const config::GpuConfig cfg = microConfig();
  // Long enough that the chain, not the kernel-parameter load (mem_latency), ends the kernel.
  const unsigned n1 = 96, n2 = 224;
  const Timed a = runMicro(chain(n1, "%R2", "%R3", "%R4", "%R5"), cfg);
  const Timed b = runMicro(chain(n2, "%R2", "%R3", "%R4", "%R5"), cfg);
  const double per = double(b.r.cycles - a.r.cycles) / double(n2 - n1);
  INFO("cycles " << a.r.cycles << " / " << b.r.cycles << ", per add " << per);
  CHECK(per == Approx(double(cfg.pipeline.fp32_add_latency)).margin(0.1));
  CHECK(stat(b, "bank_conflicts") == 0);
}

// The microbenchmark's chain shape (ubench_latency): `op x, x, s` with a
// loop-invariant s, so each op reads the register it writes. Straight-line
// and one warp: with nothing else in flight the chain issues every `latency`
// cycles of its class exactly (the difference of two chain lengths cancels
// the kernel's start and end).
TEST_CASE("an `op x, x, s` chain issues every class latency cycles", "[sm]") {
  const config::GpuConfig cfg = microConfig();
  struct Shape {
    const char* name;
    const char* init;
    const char* step;
    uint32_t latency;
  };
  const Shape shapes[] = {
      {"int add", "  mov.u32 %R2, 7;\n  mov.u32 %R3, 5;\n", "  add.u32 %R2, %R2, %R3;\n",
       cfg.pipeline.int_add_latency},
      {"fp32 fma", "  mov.f32 %R2, 0f3F800000;\n  mov.f32 %R3, 0f3F000000;\n  mov.f32 %R5, 0f3E800000;\n",
       "  fma.rn.f32 %R2, %R2, %R3, %R5;\n", cfg.pipeline.fp32_fma_latency},
      {"fp64 add", "  mov.f64 %RD4, 0d3FF0000000000000;\n  mov.f64 %RD6, 0d3FB999999999999A;\n",
       "  add.rn.f64 %RD4, %RD4, %RD6;\n", cfg.pipeline.fp64_add_latency},
  };
  for (const Shape& sh : shapes) {
    auto body = [&](unsigned n) {
      std::string b = sh.init;
      for (unsigned i = 0; i < n; ++i) b += sh.step;
      return b + "  st.global.u32 [%RD8], %R2;\n";
    };
    // Long enough that the chain, not the parameter load (mem_latency), ends the kernel.
    const unsigned n1 = cfg.pipeline.mem_latency / sh.latency + 32, n2 = n1 + 128;
    const Timed a = runMicro(body(n1), cfg), b = runMicro(body(n2), cfg);
    const double per = double(b.r.cycles - a.r.cycles) / double(n2 - n1);
    INFO(sh.name << ": cycles " << a.r.cycles << " / " << b.r.cycles << ", per op " << per);
    CHECK(per == Approx(double(sh.latency)).margin(0.1));
    CHECK(stat(b, "bank_conflicts") == 0);
    CHECK(stat(b, "write_port_conflicts") == 0);
  }
}

// The microbenchmark kernels themselves (workloads/ubench_latency, through
// the back end): 64 chain ops per loop pass plus the loop's 6 other
// instructions (3 ld.param that nvcc re-reads in the loop, add, setp, bra).
// Two iteration counts: their difference cancels the kernel's start, the
// cold L1I misses of the first pass and the last op's latency, leaving
// latency + (loop overhead per pass) / 64 per op. The overhead is the part
// of the loop that does not hide under the chain: in order, the first chain
// op of a pass waits for the ld.param of s (const_latency, after a WAW on the
// same register for int add), the setp for the loop add and the bra for the
// setp (int_add_latency each). Margin: kLoopSlack cycles per pass, i.e.
// 0.5 cycle per op. The ld.param bug (ld.param taking mem_latency instead of
// const_latency) added about 2 x 193 / 64 = 6 cycles per op here.
TEST_CASE("ubench_latency chains measure their class latency per op", "[sm]") {
  // v100, L1I misses included: they cancel. One pool of units: with Volta's
  // sub-cores, the parameter the back end re-materialises in the loop (a mov
  // between two chain ops) waits for the sub-core's one INT unit (ii 2) and
  // delays the next op by a cycle, which the loop slack does not cover.
  config::GpuConfig cfg;
  cfg.sm.sub_cores = 1;
  cfg.regfile.num_banks = 16;
  const std::string ptx = kWl + "ubench_latency/ubench_latency.ptx";
  constexpr unsigned kUnroll = 64;
  constexpr double kLoopSlack = 32;  // cycles per loop pass (see above)
  struct Chain {
    const char* kernel;
    uint32_t latency;
    unsigned bytes;  // element size
    std::vector<uint8_t> b, c;
  };
  const Chain chains[] = {
      {"lat_int_add", cfg.pipeline.int_add_latency, 4, arg(0x9e3779b9u), arg(0u)},
      {"lat_int_mad", cfg.pipeline.int_mad_latency, 4, arg(1664525u), arg(1013904223u)},
      {"lat_fp32_add", cfg.pipeline.fp32_add_latency, 4, arg(0.375f), arg(0.0f)},
      {"lat_fp32_fma", cfg.pipeline.fp32_fma_latency, 4, arg(0.99f), arg(0.01f)},
      {"lat_fp64_add", cfg.pipeline.fp64_add_latency, 8, arg(0.1), arg(0.0)},
      {"lat_fp64_fma", cfg.pipeline.fp64_fma_latency, 8, arg(0.999), arg(0.001)},
  };
  for (const Chain& ch : chains) {
    auto clocks = [&](int iters, uint64_t* const_accesses, uint64_t* mem_accesses) {
      Loaded ld(ptx, ch.kernel);
      const uint64_t in = buffer(ld.mem, std::vector<uint8_t>(32 * ch.bytes, 0));
      const uint64_t out = buffer(ld.mem, std::vector<uint8_t>(32 * ch.bytes, 0));
      const uint64_t clk = buffer(ld.mem, std::vector<uint8_t>(32 * 8, 0));
      Launch l{ch.kernel, {1, 1, 1}, {32, 1, 1}, 0, {arg(in), arg(out), arg(clk), arg(iters), ch.b, ch.c},
               {{clk, 32 * 8}}};
      const Timed t = runTimed(ld, l, cfg, ld.tree_regs);
      uint64_t lane0 = 0;
      std::memcpy(&lane0, t.out[0].data(), 8);
      if (const_accesses) *const_accesses = stat(t, "const_accesses");
      if (mem_accesses) *mem_accesses = stat(t, "mem_accesses");
      return lane0;
    };
    const int i1 = 4, i2 = 12;
    uint64_t consts = 0, mems = 0;
    const uint64_t c1 = clocks(i1, nullptr, nullptr), c2 = clocks(i2, &consts, &mems);
    const double per = double(c2 - c1) / double((i2 - i1) * kUnroll);
    INFO(ch.kernel << ": %clock64 deltas " << c1 << " (" << i1 << " passes) / " << c2 << " (" << i2
                   << " passes), per op " << per << ", latency " << ch.latency);
    CHECK(per >= double(ch.latency));
    CHECK(per <= double(ch.latency) + kLoopSlack / kUnroll);
    // The kernel's parameters are constant-bank operands (compiler.param_operands):
    // no ld.param runs, and nothing of them goes through the memory interface.
    CHECK(consts == 0);
    CHECK(mems <= 4);  // the global load of x and the two global stores
  }
}

TEST_CASE("two source operands in one register bank cost a cycle", "[sm]") {
  const config::GpuConfig cfg = microConfig();
  const unsigned n = 64, banks = cfg.regfile.num_banks;
  REQUIRE(banks == 16);  // R2/R18 and R4/R20 share a bank
  const Timed a = runMicro(chain(n, "%R2", "%R3", "%R4", "%R5"), cfg);
  const Timed b = runMicro(chain(n, "%R2", "%R18", "%R4", "%R20"), cfg);
  INFO("no conflict " << a.r.cycles << ", conflict " << b.r.cycles);
  // One cycle per conflicting instruction (the first read of a pair waits a
  // cycle for the bank); a write-back port collision may add one or two.
  CHECK(b.r.cycles - a.r.cycles >= n);
  CHECK(b.r.cycles - a.r.cycles <= n + 4);
  CHECK(stat(b, "bank_conflicts") >= n);
}

// ubench_regbank: 8 FMA chains keep one warp issue-bound; in a register file
// of one bank with one read port an FMA takes a cycle per distinct source
// register, with 4 read ports one cycle (write port: 1 register per cycle,
// so an fp64 result pair takes 2). The loop's other instructions add the same
// per-FMA overhead to every variant: measured on the conflict-free run.
TEST_CASE("ubench_regbank: one bank serialises an FMA's distinct source registers", "[sm]") {
  const std::string ptx = kWl + "ubench_regbank/ubench_regbank.ptx";
  const int iters = 4, fmas = iters * 16 * 8;
  auto perFma = [&](const char* kernel, unsigned bytes, uint32_t banks, uint32_t ports) {
    config::GpuConfig cfg;
    cfg.sm.sub_cores = 1;               // one pool: an FMA a cycle, the rate this case is computed for
    cfg.regfile.operand_reuse = false;  // every source read from a bank
    cfg.regfile.num_banks = banks;
    cfg.regfile.read_ports_per_bank = ports;
    Loaded ld(ptx, kernel);
    const uint64_t in = buffer(ld.mem, std::vector<uint8_t>(24 * 32 * bytes, 0));
    const uint64_t out = buffer(ld.mem, std::vector<uint8_t>(32 * bytes, 0));
    const uint64_t clk = buffer(ld.mem, std::vector<uint8_t>(32 * 8, 0));
    Launch l{kernel, {1, 1, 1}, {32, 1, 1}, 0, {arg(in), arg(out), arg(clk), arg(iters)}, {{clk, 32 * 8}}};
    const Timed t = runTimed(ld, l, cfg, ld.tree_regs);
    uint64_t lane0 = 0;
    std::memcpy(&lane0, t.out[0].data(), 8);
    return double(lane0) / fmas;
  };
  const double base = perFma("regbank_same", 4, 1, 1);  // one register: no conflict
  const double overhead = base - 1.0;
  INFO("one-register chain: " << base << " cycles per FMA");
  CHECK(overhead >= 0.0);
  CHECK(overhead < 0.6);  // the loop (about 27 cycles per pass) and the clock reads
  CHECK(perFma("regbank_pair", 4, 1, 1) == Approx(2.0 + overhead).margin(0.02));
  CHECK(perFma("regbank_distinct", 4, 1, 1) == Approx(3.0 + overhead).margin(0.02));
  CHECK(perFma("regbank_fp64", 8, 1, 1) == Approx(6.0 + overhead).margin(0.02));
  CHECK(perFma("regbank_distinct", 4, 1, 4) == Approx(base).margin(0.02));
  CHECK(perFma("regbank_fp64", 8, 1, 4) == Approx(2.0 + overhead).margin(0.02));  // the write port
}

// pipeline.dual_issue: one warp's independent fp32 and int adds, alternating,
// issue two per cycle; two fp32 adds (same unit type) never pair.
TEST_CASE("dual issue pairs a warp's next instruction for another unit type", "[sm]") {
  const unsigned n = 64;  // pairs
  auto body = [&](bool mixed) {
    std::string s = "  mov.u32 %R2, 1;\n  mov.u32 %R3, 2;\n  mov.u32 %R11, 3;\n  mov.u32 %R12, 4;\n";
    for (unsigned i = 0; i < n; ++i) {
      s += fmt::format("  add.f32 %R{}, %R2, %R3;\n", 20 + i % 8);
      s += mixed ? fmt::format("  add.u32 %R{}, %R11, %R12;\n", 40 + i % 8)
                 : fmt::format("  add.f32 %R{}, %R11, %R12;\n", 40 + i % 8);
    }
    return s + "  st.global.u32 [%RD8], %R47;\n";
  };
  config::GpuConfig single = microConfig(), dual = microConfig();
  dual.pipeline.dual_issue = true;
  const Timed a = runMicro(body(true), single), b = runMicro(body(true), dual);
  INFO("single issue " << a.r.cycles << " cycles, dual " << b.r.cycles);
  CHECK(stat(a, "dual_issues") == 0);
  CHECK(stat(b, "dual_issues") >= n - 2);
  CHECK(b.r.cycles + n - 8 <= a.r.cycles);  // about one cycle saved per pair
  CHECK(b.out == a.out);
  const Timed c = runMicro(body(false), dual);
  CHECK(stat(c, "dual_issues") <= 2);  // only around the movs and the store
}

TEST_CASE("independent adds from 4 warps issue back to back", "[sm]") {
  config::GpuConfig cfg = microConfig();
  cfg.pipeline.bank_swizzle = true;  // the warps' registers in different banks
  std::string body = "  mov.f32 %R2, 0f3F800000;\n";
  const unsigned k = 32;
  for (unsigned i = 0; i < k; ++i) body += fmt::format("  add.f32 %R{}, %R2, %R2;\n", 10 + i % 40);
  body += "  st.global.f32 [%RD8], %R10;\n";
  const Timed one = runMicro(body, cfg, 32), four = runMicro(body, cfg, 128);
  INFO("1 warp " << one.r.cycles << ", 4 warps " << four.r.cycles);
  // One warp issues an add per cycle; four warps (one per scheduler) share
  // the SP pipelines' throughput of sp_units / fp32_add_ii adds per cycle.
  const double rate = std::min<double>(cfg.sm.num_schedulers, double(cfg.pipeline.sp_units) / cfg.pipeline.fp32_add_ii);
  CHECK(four.r.cycles <= one.r.cycles + uint64_t(4 * k / rate - k) + 8);
  CHECK(stat(four, "warp_instrs") == 4 * stat(one, "warp_instrs"));
}

// sm.sub_cores: warp w belongs to sub-core w % 4 and executes only on that
// sub-core's units. One warp of independent adds: with one pool it spreads
// them over the 4 SP units (one add a cycle, the scheduler's rate); on its
// own sub-core's single SP unit (ii 2) one every fp32_add_ii cycles.
TEST_CASE("sub-cores: a warp executes on its own sub-core's units only", "[sm][subcore]") {
  config::GpuConfig pool = microConfig(), split = microConfig();
  pool.sm.sub_cores = 1;
  split.sm.sub_cores = 4;
  std::string body = "  mov.f32 %R2, 0f3F800000;\n";
  const unsigned k = 64;
  for (unsigned i = 0; i < k; ++i) body += fmt::format("  add.f32 %R{}, %R2, %R2;\n", 10 + i % 40);
  body += "  st.global.f32 [%RD8], %R10;\n";
  const Timed a = runMicro(body, pool), b = runMicro(body, split);
  INFO("one pool " << a.r.cycles << " cycles, 4 sub-cores " << b.r.cycles);
  CHECK(b.out == a.out);
  CHECK(b.r.cycles >= a.r.cycles + k * (split.pipeline.fp32_add_ii - 1) - 8);
  // Four warps, one per sub-core: each has its own unit, so together they
  // take about as long as one alone.
  const Timed four = runMicro(body, split, 128);
  CHECK(four.r.cycles <= b.r.cycles + 16);
}

// regfile.operand_reuse: every add reads R2 and R3 in the slots the previous
// one read them in, so each after the first takes both from the reuse cache.
TEST_CASE("reuse: flagged operands are served by the reuse cache, not the banks", "[sm][reuse]") {
  config::GpuConfig off = microConfig(), on = microConfig();
  off.regfile.operand_reuse = false;
  on.regfile.operand_reuse = true;
  std::string body = "  mov.f32 %R2, 0f3F800000;\n  mov.f32 %R3, 0f40000000;\n";
  const unsigned k = 32;
  for (unsigned i = 0; i < k; ++i) body += fmt::format("  add.f32 %R{}, %R2, %R3;\n", 10 + i % 40);
  body += "  st.global.f32 [%RD8], %R10;\n";
  const Timed a = runMicro(body, off), b = runMicro(body, on);
  CHECK(b.out == a.out);
  CHECK(stat(a, "reuse_hits") == 0);
  CHECK(stat(b, "reuse_hits") == 2 * (k - 1));
  auto reads = [](const Timed& t) {
    uint64_t n = 0;
    for (const auto& [bank, v] : t.stats.at("root.sm0.opcoll.rf_reads").items()) n += v.get<uint64_t>();
    return n;
  };
  CHECK(reads(a) - reads(b) == 2 * (k - 1));
}

TEST_CASE("a stride-2 shared access costs one pass more than stride 1", "[sm]") {
  const config::GpuConfig cfg = microConfig();
  auto body = [](unsigned shift) {
    return fmt::format(
        "  mov.u32 %R2, %tid.x;\n  shl.b32 %R3, %R2, {};\n  mov.u32 %R4, smem;\n  add.u32 %R3, %R3, %R4;\n"
        // Wait for the parameter load first, so the shared access ends the kernel.
        "  cvt.u32.u64 %R7, %RD8;\n  and.b32 %R7, %R7, 0;\n  add.u32 %R3, %R3, %R7;\n"
        "  ld.shared.u32 %R5, [%R3];\n  add.u32 %R6, %R5, 1;\n  st.global.u32 [%RD8], %R6;\n",
        shift);
  };
  const Timed s1 = runMicro(body(2), cfg), s2 = runMicro(body(3), cfg);
  CHECK(stat(s1, "shared_passes") == 1);
  CHECK(stat(s2, "shared_passes") == 2);
  CHECK(s2.r.cycles == s1.r.cycles + 1);
}

TEST_CASE("a warp waiting at bar.sync reports Barrier stalls", "[sm]") {
  const config::GpuConfig cfg = microConfig();
  std::string body = "  mov.u32 %R2, %tid.x;\n  setp.ge.u32 %P0, %R2, 32;\n  @%P0 bra WAIT;\n" +
                     chain(40, "%R2", "%R3", "%R4", "%R5") + "WAIT:\n  bar.sync 0;\n";
  const Timed t = runMicro(body, cfg, 64);
  uint64_t barrier = 0;
  for (unsigned s = 0; s < cfg.sm.num_schedulers; ++s)
    barrier += t.stats.at("root.sm0.issue.stall_cycles").at(fmt::format("s{}.{}", s, sm::stallName(sm::Stall::Barrier)))
                   .get<uint64_t>();
  CHECK(barrier >= 40 * cfg.pipeline.fp32_add_latency / 2);
}

TEST_CASE("the watchdog names the warps stuck at a barrier", "[sm]") {
  config::GpuConfig cfg = microConfig();
  cfg.pipeline.watchdog_cycles = 2000;
  const std::string body = "  mov.u32 %R2, %tid.x;\n  setp.ge.u32 %P0, %R2, 32;\n  @%P0 bra OTHER;\n"
                           "  bar.sync 0;\n  bra.uni END;\nOTHER:\n  bar.sync 1;\nEND:\n";
  try {
    runMicro(body, cfg, 64);
    FAIL("no deadlock reported");
  } catch (const Error& e) {
    const std::string m = e.what();
    INFO(m);
    CHECK(m.find("deadlock") != std::string::npos);
    CHECK(m.find("warp 0: at barrier") != std::string::npos);
    CHECK(m.find("barrier 1") != std::string::npos);
    // The state dump, per warp: pc, SIMT stack top, scoreboard, pending memory.
    CHECK(m.find("SIMT top pc") != std::string::npos);
    CHECK(m.find("| scoreboard [") != std::string::npos);
    CHECK(m.find("| pending mem 0") != std::string::npos);
    CHECK(m.find("warp 1:") != std::string::npos);
  }
}

// Simulation speed on larger launches (not run by default: [.speed]).
TEST_CASE("simulation speed on saxpy and sgemm", "[.speed]") {
  const config::GpuConfig cfg;
  {
    Loaded ld(kWl + "saxpy/saxpy.ptx", "saxpy");
    const int n = 1 << 18;
    const uint64_t x = buffer(ld.mem, bytesOf<float>(n, [](size_t i) { return float(i % 29); }));
    const uint64_t y = buffer(ld.mem, bytesOf<float>(n, [](size_t i) { return float(i % 7); }));
    Launch l{"saxpy", {64, 1, 1}, {256, 1, 1}, 0, {arg(n), arg(2.5f), arg(x), arg(y)}, {}};
    const Timed t = runTimed(ld, l, cfg, ld.tree_regs);
    WARN("saxpy: " << t.r.cycles << " cycles, " << t.r.warp_instrs << " warp instrs, IPC "
                   << double(t.r.warp_instrs) / t.r.cycles << ", " << t.r.warp_instrs / t.r.host_seconds
                   << " warp instr/s, " << t.r.cycles / t.r.host_seconds << " cycles/s");
  }
  {
    Loaded ld(kWl + "sgemm/sgemm.ptx", "sgemm_tiled");
    const int n = 128;
    auto mat = [&](int seed) {
      return buffer(ld.mem, bytesOf<float>(n * n, [=](size_t i) { return float((i * 7 + seed) % 13) - 6; }));
    };
    const uint64_t a = mat(1), b = mat(2), c = mat(3);
    Launch l{"sgemm_tiled", {8, 8, 1}, {16, 16, 1}, 0,
             {arg(n), arg(n), arg(n), arg(1.5f), arg(a), arg(b), arg(0.5f), arg(c)}, {}};
    const Timed t = runTimed(ld, l, cfg, ld.tree_regs);
    WARN("sgemm: " << t.r.cycles << " cycles, " << t.r.warp_instrs << " warp instrs, IPC "
                   << double(t.r.warp_instrs) / t.r.cycles << ", " << t.r.warp_instrs / t.r.host_seconds
                   << " warp instr/s, " << t.r.cycles / t.r.host_seconds << " cycles/s");
  }
}
