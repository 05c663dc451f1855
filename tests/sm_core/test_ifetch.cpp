// The instruction memory (sm/core/ifetch_path.h, icache.h) on hand-built
// fetch sequences, and the fetch stage's prefetch on a straight-line kernel.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../func/machine_helpers.h"
#include "config/gpu_config.h"
#include "config/config_io.h"
#include "func/stepper.h"
#include "runtime/runtime.h"
#include "sm/core/fetch_stage.h"
#include "sm/core/icache.h"
#include "sm/core/ifetch_path.h"
#include "sm/core/sm_stats.h"
#include "sm_test_util.h"
#include "workloads/workload.h"

using namespace rfsim;
using config::IPrefetch;

namespace {

// An instruction memory over one function of `instrs` instructions.
struct Path {
  stats::Group root{nullptr, "root"};
  sm::FetchStats st{&root};
  sm::IFetchPath p;
  Path(const config::GpuConfig& cfg, uint32_t instrs) : p(cfg, st, {instrs}) {}
};

// No L0; an L1I of `kb` KiB, `assoc` ways; a 1-cycle hit, a 100-cycle miss.
config::GpuConfig l1Only(uint32_t kb = 128, uint32_t assoc = 16) {
  config::GpuConfig c;
  c.l1i.size_kb = kb;
  c.l1i.assoc = assoc;
  c.l1i.latency = 1;
  c.l1i.l0_size_kb = 0;
  c.l1i.prefetch = IPrefetch::None;
  c.l1i.prefetch_degree = 1;
  c.pipeline.l1i_miss_latency = 100;
  return c;
}

// Kernel `k` of `text` as one block of one warp, whose stepper stands for
// the warp in each of the first `nwarps` slots (the `Warps` a FetchStage
// steps), and the code layout the SM gives the fetch stage.
struct FetchKernel {
  test::Loaded ld;
  func::LaunchSetup setup;
  rt::LaunchStats ls;
  func::BlockStepper st;
  uint32_t nwarps;
  std::vector<uint32_t> instrs;
  FetchKernel(const std::string& text, uint32_t nwarps)
      : ld(test::parseMachine(text)), setup(ld.prog->setupLaunch("k", {1, 1, 1}, {32, 1, 1}, {}, 0)),
        st(*ld.prog, setup, ls, {0, 0, 0}), nwarps(nwarps) {
    for (const func::DFunction& f : ld.prog->functions()) instrs.push_back(static_cast<uint32_t>(f.code.size()));
  }
  func::BlockStepper* stepper(uint32_t s, uint32_t& local) {
    local = 0;
    return s < nwarps ? &st : nullptr;
  }
  void finished(uint32_t) {}
};

}  // namespace

TEST_CASE("ICache: LRU replacement within a set, arrival cycles kept with the tags", "[fetch]") {
  sm::ICache c(8, 2);  // 4 sets x 2 ways
  bool pf = false;
  CHECK(c.access(0, pf) == sm::ICache::kAbsent);
  CHECK_FALSE(c.insert(0, 10, 0, false));
  CHECK_FALSE(c.insert(4, 20, 0, true));
  CHECK(c.access(4, pf) == 20);
  CHECK(pf);
  CHECK(c.access(4, pf) == 20);
  CHECK_FALSE(pf);  // the prefetched flag goes with the first use
  CHECK(c.access(0, pf) == 10);  // 0 is now the most recently used
  CHECK(c.insert(8, 30, 50, false));  // evicts 4
  CHECK(c.contains(0));
  CHECK_FALSE(c.contains(4));
  CHECK(c.contains(8));
  CHECK_THROWS(sm::ICache(12, 4));  // 3 sets
}

TEST_CASE("L0 I-caches are per sub-core in front of the shared L1I", "[fetch]") {
  config::GpuConfig cfg = l1Only();
  cfg.sm.sub_cores = 2;
  cfg.l1i.l0_size_kb = 1;
  cfg.l1i.l0_assoc = 2;
  cfg.l1i.l0_latency = 1;
  cfg.l1i.latency = 4;
  Path p(cfg, 64);
  // Sub-core 0 misses both levels: the L2 latency.
  CHECK(p.p.fetch(0, 0, 0, 2, 0) == 100);
  CHECK(p.st.l0i_misses.get() == 1);
  CHECK(p.st.l1i_misses.get() == 1);
  // Sub-core 1 misses its own L0 and hits the L1I.
  CHECK(p.p.fetch(1, 0, 0, 2, 200) == 204);
  CHECK(p.st.l0i_misses.get() == 2);
  CHECK(p.st.l1i_hits.get() == 1);
  // Both now hit their L0.
  CHECK(p.p.fetch(0, 0, 2, 2, 300) == 301);
  CHECK(p.p.fetch(1, 0, 4, 2, 300) == 301);
  CHECK(p.st.l0i_hits.get() == 2);
  CHECK(p.st.fills.get() == 4);
  // A fill spanning two lines (pc 7 and 8): the L0 misses line 1.
  CHECK(p.p.fetch(0, 0, 7, 2, 400) == 500);
  CHECK(p.st.l0i_misses.get() == 3);
  CHECK(p.st.l1i_misses.get() == 2);
  // L0 capacity (1 KiB: 8 lines, 4 sets x 2 ways): lines 0, 4 and 8 share
  // set 0; 8 evicts 0 from sub-core 0's L0, which the L1I still holds.
  CHECK(p.p.fetch(0, 0, 32, 1, 500) == 600);
  CHECK(p.p.fetch(0, 0, 64, 1, 600) == 700);
  CHECK(p.st.l0i_evictions.get() == 1);
  CHECK(p.p.fetch(0, 0, 0, 1, 800) == 804);
  CHECK(p.st.l1i_hits.get() == 2);
}

TEST_CASE("L1I capacity: a line evicted by three others of its set misses again", "[fetch]") {
  Path p(l1Only(1, 2), 128);  // 8 lines: 4 sets x 2 ways
  // Lines 0, 4, 8 (pc 0, 32, 64) map to set 0.
  CHECK(p.p.fetch(0, 0, 0, 1, 0) == 100);
  CHECK(p.p.fetch(0, 0, 32, 1, 1000) == 1100);
  CHECK(p.p.fetch(0, 0, 64, 1, 2000) == 2100);  // evicts line 0 (least recently used)
  CHECK(p.st.l1i_evictions.get() == 1);
  CHECK(p.p.fetch(0, 0, 0, 1, 3000) == 3100);  // misses again, evicting line 4
  CHECK(p.p.fetch(0, 0, 64, 1, 4000) == 4001);  // line 8 stayed
  CHECK(p.st.l1i_misses.get() == 4);
  CHECK(p.st.l1i_hits.get() == 1);
  CHECK(p.st.l1i_evictions.get() == 2);
  // Lines of other sets were never disturbed.
  CHECK(p.p.fetch(0, 0, 8, 1, 5000) == 5100);
  CHECK(p.p.fetch(0, 0, 8, 1, 6000) == 6001);
}

TEST_CASE("code layout: 16-byte instructions, or Maxwell's 32-byte bundles of three", "[fetch]") {
  stats::Group root{nullptr, "root"};
  sm::FetchStats st{&root};
  config::GpuConfig c = l1Only();  // 128-byte lines
  SECTION("bits128: 8 instructions a line, functions from a line boundary") {
    const sm::IFetchPath p(c, st, {13, 5});
    CHECK(p.lineOf(0, 7) == 0);
    CHECK(p.lineOf(0, 8) == 1);
    CHECK(p.lineOf(0, 12) == 1);
    CHECK(p.lineOf(1, 0) == 2);
  }
  SECTION("bits64_ctrl3: 12 instructions a line (4 bundles of a control word and three)") {
    c.l1i.encoding = config::IEncoding::Bits64Ctrl3;
    const sm::IFetchPath p(c, st, {13, 5, 12});
    CHECK(p.byteOf(0) == 8);  // after the bundle's control word
    CHECK(p.byteOf(2) == 24);
    CHECK(p.byteOf(3) == 40);
    CHECK(p.lineOf(0, 11) == 0);  // byte 120
    CHECK(p.lineOf(0, 12) == 1);  // byte 136
    CHECK(p.lineOf(1, 0) == 2);   // 13 instructions: 5 bundles, 160 bytes, 2 lines
    CHECK(p.lineOf(1, 4) == 2);
    CHECK(p.lineOf(2, 0) == 3);   // 5 instructions: 2 bundles
    CHECK(p.lineOf(2, 11) == 3);  // 12 instructions: exactly one line
    CHECK(p.bytesOf(12) == 128);
  }
}

TEST_CASE("concurrent misses to one line merge: the later fetch waits for the same arrival", "[fetch]") {
  SECTION("in the L1I") {
    Path p(l1Only(), 64);
    CHECK(p.p.fetch(0, 0, 0, 2, 0) == 100);
    CHECK(p.p.fetch(0, 0, 2, 2, 10) == 100);
    CHECK(p.p.fetch(0, 0, 4, 2, 100) == 101);
    CHECK(p.st.l1i_misses.get() == 1);
    CHECK(p.st.l1i_merges.get() == 1);
    CHECK(p.st.l1i_hits.get() == 1);
  }
  SECTION("an L0 miss on a line the L1I is fetching for another sub-core") {
    config::GpuConfig cfg = l1Only();
    cfg.sm.sub_cores = 4;
    cfg.l1i.l0_size_kb = 1;
    cfg.l1i.l0_assoc = 2;
    Path p(cfg, 64);
    CHECK(p.p.fetch(0, 0, 0, 2, 0) == 100);
    CHECK(p.p.fetch(3, 0, 0, 2, 30) == 100);
    CHECK(p.st.l1i_misses.get() == 1);
    CHECK(p.st.l1i_merges.get() == 1);
    CHECK(p.st.l0i_misses.get() == 2);
  }
}

namespace {

// One warp runs straight through `instrs` instructions: each fill of two
// starts 2 cycles after the last arrived (two issues). The cycle it ends.
uint64_t straightLine(Path& p, uint32_t instrs) {
  uint64_t t = 0;
  for (uint32_t pc = 0; pc < instrs; pc += 2) t = p.p.fetch(0, 0, pc, 2, t) + 2;
  return t;
}

}  // namespace

TEST_CASE("prefetch on a hand-built straight-line fetch sequence: exact misses and cycles", "[fetch]") {
  // 64 instructions = 8 lines of 8; 4 fills per line. Without prefetch each
  // line costs a miss (100 + 2) and three hits (1 + 2): 111 x 8.
  config::GpuConfig cfg = l1Only();
  {
    Path p(cfg, 64);
    CHECK(straightLine(p, 64) == 888);
    CHECK(p.st.l1i_misses.get() == 8);
    CHECK(p.st.prefetches.get() == 0);
  }
  // next_line: a miss on line L brings L+1, which has arrived when the warp
  // gets there (a hit that prefetches nothing): lines 0, 2, 4, 6 miss; a
  // pair of lines costs 111 + 12.
  cfg.l1i.prefetch = IPrefetch::NextLine;
  {
    Path p(cfg, 64);
    CHECK(straightLine(p, 64) == 492);
    CHECK(p.st.l1i_misses.get() == 4);
    CHECK(p.st.prefetches.get() == 4);
    CHECK(p.st.prefetch_l2.get() == 4);
    CHECK(p.st.prefetch_useful.get() == 4);
  }
  // stream: the first use of a prefetched line brings the next, so only
  // line 0 misses; from line 2 on the warp waits for each even line (a
  // line's prefetch starts 12 cycles after the one before it). The warp
  // leaves line 0 at 111, then 1: 123, 2: 222, 3: 234, 4: 333, 5: 345,
  // 6: 444, 7: 456.
  cfg.l1i.prefetch = IPrefetch::Stream;
  {
    Path p(cfg, 64);
    CHECK(straightLine(p, 64) == 456);
    CHECK(p.st.l1i_misses.get() == 1);
    CHECK(p.st.prefetches.get() == 7);  // none past the code's last line
    CHECK(p.st.prefetch_useful.get() == 7);
  }
  // stream, 4 lines ahead: line 0 misses (111), lines 1-4 prefetched at 0
  // have arrived at 111, and each later line was prefetched 4 lines (48
  // cycles) ahead, still short of 100: every 4 lines wait.
  cfg.l1i.prefetch_degree = 4;
  {
    Path p(cfg, 64);
    const uint64_t t = straightLine(p, 64);
    CHECK(t < 456);
    CHECK(p.st.l1i_misses.get() == 1);
    CHECK(p.st.prefetches.get() == 7);
  }
}

namespace {

const std::string kHead = ".version 9.0\n.target sm_75\n.address_size 64\n";

// A straight-line kernel of `n` independent adds (16 bytes each in the
// fetch stage's layout: n / 8 lines), one block of `threads`.
test::Timed runStraight(const config::GpuConfig& cfg, unsigned n, uint32_t threads = 32) {
  std::string body;
  for (unsigned i = 0; i < n; ++i) body += fmt::format("  add.u32 %R{}, %R2, {};\n", 20 + i % 16, i);
  const std::string text = kHead + ".visible .entry k(.param .u64 out)\n{\n  .reg .b32 %R<64>;\n"
                           "  .reg .b64 %RD<16>;\n  ld.param.u64 %RD8, [out];\n  mov.u32 %R2, 1;\n" +
                           body + "  st.global.u32 [%RD8], %R20;\n  ret;\n}\n";
  test::Loaded ld(test::parseMachine(text));
  const uint64_t out = test::buffer(ld.mem, std::vector<uint8_t>(64, 0));
  test::Launch l{"k", {1, 1, 1}, {threads, 1, 1}, 0, {test::arg(out)}, {{out, 4}}};
  return test::runTimed(ld, l, cfg, 64);
}

uint64_t fstat(const test::Timed& t, const std::string& k) {
  return t.stats.at("root.sm0.fetch." + k).get<uint64_t>();
}

}  // namespace

// The cold-start microbenchmark: 8 KiB of straight-line code (512
// instructions, 64 lines) run once by one warp and by four (one per
// sub-core), prefetch off and as each configuration sets it. Without
// prefetch every line costs an L1I miss.
TEST_CASE("I-cache prefetch on a straight-line kernel: fewer fetch stalls and cycles", "[fetch]") {
  for (const char* name : {"v100", "titanv"}) {
    const config::GpuConfig on = config::loadConfig(std::string(RFSIM_SOURCE_DIR) + "/configs/" + name + ".yaml");
    REQUIRE(on.l1i.prefetch != IPrefetch::None);
    config::GpuConfig off = on;
    off.l1i.prefetch = IPrefetch::None;
    for (uint32_t threads : {32u, 128u}) {
      const test::Timed a = runStraight(off, 512, threads), b = runStraight(on, 512, threads);
      const uint64_t lines = 512 * 16 / on.l1i.line_bytes;
      INFO(name << ", " << threads << " threads: prefetch off " << a.r.cycles << " cycles, " << fstat(a, "stall_cycles")
                << " stall cycles; on " << b.r.cycles << " cycles, " << fstat(b, "stall_cycles") << " stall cycles");
      WARN(name << " " << threads << " threads: cycles off " << a.r.cycles << " on " << b.r.cycles << ", stalls off "
                << fstat(a, "stall_cycles") << " on " << fstat(b, "stall_cycles") << ", cold cost per line off "
                << double(a.r.cycles - b.r.cycles) / double(lines) << " cycles");
      CHECK(fstat(a, "l1i_misses") >= lines);
      CHECK(fstat(b, "l1i_misses") < lines / 4);
      CHECK(fstat(b, "stall_cycles") < fstat(a, "stall_cycles") / 4);
      CHECK(b.r.cycles < a.r.cycles);
      CHECK(fstat(b, "prefetch_useful") >= lines - 2);
    }
  }
}

// A fill is written into the I-buffer in the cycle it arrives, whoever asks:
// a fetch stage whose warp the issue stage looks at every cycle (hasInstr)
// and one whose warp it never looks at (a warp waiting on the scoreboard, at
// a barrier, outside the warp limit) hold the same entries, start the same
// fills and report the same next arrival at every cycle.
TEST_CASE("FetchStage: a fill enters the I-buffer when it arrives (asked or not)", "[fetch]") {
  config::GpuConfig cfg = l1Only();  // an L1I miss: 100 cycles; a hit: 1
  cfg.sm.sub_cores = 1;
  cfg.pipeline.fetch_width = 1;
  cfg.pipeline.ibuffer_depth = 4;
  std::string body;
  for (unsigned i = 0; i < 64; ++i) body += fmt::format("  add.u32 %R{}, %R2, {};\n", 20 + i % 16, i);
  const std::string text =
      kHead + ".visible .entry k()\n{\n  .reg .b32 %R<64>;\n  mov.u32 %R2, 1;\n" + body + "  ret;\n}\n";
  FetchKernel warps(text, 1);
  stats::Group ra(nullptr, "a"), rb(nullptr, "b");
  sm::FetchStats sa(&ra), sb(&rb);
  sm::FetchStage asked(cfg, sa, warps.instrs), unasked(cfg, sb, warps.instrs);
  bool popped = false;
  for (uint64_t t = 0; t < 400; ++t) {
    asked.hasInstr(0, t);
    // Once the first fill is in, the warp takes two entries in both (it
    // issued): a fill of two starts behind them.
    if (!popped && t >= 150) {
      REQUIRE(asked.valid(0) == 4);
      REQUIRE(unasked.valid(0) == 4);
      for (sm::FetchStage* f : {&asked, &unasked}) f->pop(0), f->pop(0);
      popped = true;
    }
    asked.cycle(t, warps);
    unasked.cycle(t, warps);
    INFO("cycle " << t);
    REQUIRE(asked.valid(0) == unasked.valid(0));
    REQUIRE(asked.pending(0) == unasked.pending(0));
    REQUIRE(asked.fillAt(0) == unasked.fillAt(0));
    REQUIRE(asked.fills() == unasked.fills());
    // What the SM's idle-cycle skipping waits for is never in the past.
    CHECK(unasked.fillAt(0) > t);
  }
  CHECK(popped);
  CHECK(unasked.valid(0) == 4);
  CHECK(sb.fills.get() == 2);  // the first fill (a miss) and the one after the pops
}

// Round robin over a sub-core's warps (pipeline.fetch_width fills a cycle):
// from the warp after the last one fetched, each warp once, none passed
// over. Eight warps need a fill and four start each cycle: 0-3, then 4-7;
// after warps 1 and 6 take their entries, 1 is the first after the last
// fetched (7, wrapping round), so it is filled before 6.
TEST_CASE("FetchStage: round robin from the warp after the last fetched, none passed over", "[fetch]") {
  config::GpuConfig cfg = l1Only();
  cfg.l1i.latency = 1;
  cfg.sm.sub_cores = 1;
  cfg.pipeline.fetch_width = 4;
  cfg.pipeline.ibuffer_depth = 2;
  const std::string text = kHead + ".visible .entry k()\n{\n  .reg .b32 %R<8>;\n  mov.u32 %R2, 1;\n  ret;\n}\n";
  FetchKernel warps(text, 8);  // eight warps at the same pc
  stats::Group root(nullptr, "root");
  sm::FetchStats fs(&root);
  sm::FetchStage fetch(cfg, fs, warps.instrs);
  auto filling = [&] {
    std::string s;
    for (uint32_t w = 0; w < 8; ++w) s += fetch.pending(w) ? '1' : '0';
    return s;
  };
  fetch.cycle(0, warps);
  CHECK(filling() == "11110000");
  fetch.cycle(1, warps);
  CHECK(filling() == "11111111");
  for (uint64_t t = 2; t < 200; ++t) fetch.cycle(t, warps);  // every fill arrives
  CHECK(filling() == "00000000");
  for (uint32_t w = 0; w < 8; ++w) CHECK(fetch.valid(w) == 2);
  fetch.pop(6);
  fetch.pop(1);
  fetch.cycle(200, warps);
  CHECK(filling() == "01000010");
  CHECK(fs.fills.get() == 10);
  // The next cycle starts after warp 6 and wraps: five warps want a fill,
  // four are served (7, then 0, 2 and 3 from the start), and warp 5 is first
  // the cycle after.
  for (uint64_t t = 201; t < 400; ++t) fetch.cycle(t, warps);
  CHECK(filling() == "00000000");
  for (uint32_t w : {7u, 0u, 2u, 3u, 5u}) fetch.pop(w);
  fetch.cycle(400, warps);
  CHECK(filling() == "10110001");
  fetch.cycle(401, warps);
  CHECK(fetch.pending(5));
  CHECK(fs.fills.get() == 15);
}

TEST_CASE("FetchStage: the same round robin over more than 64 warp slots a sub-core", "[fetch]") {
  config::GpuConfig cfg = l1Only();
  cfg.l1i.latency = 1;
  cfg.sm.sub_cores = 1;
  cfg.sm.max_warps = 128;  // two words of marked slots
  cfg.sm.max_threads = 128 * 32;
  cfg.pipeline.fetch_width = 4;
  cfg.pipeline.ibuffer_depth = 2;
  const std::string text = kHead + ".visible .entry k()\n{\n  .reg .b32 %R<8>;\n  mov.u32 %R2, 1;\n  ret;\n}\n";
  FetchKernel warps(text, 100);
  stats::Group root(nullptr, "root");
  sm::FetchStats fs(&root);
  sm::FetchStage fetch(cfg, fs, warps.instrs);
  auto filling = [&] {
    std::vector<uint32_t> v;
    for (uint32_t w = 0; w < 128; ++w)
      if (fetch.pending(w)) v.push_back(w);
    return v;
  };
  for (uint64_t t = 0; t < 400; ++t) fetch.cycle(t, warps);  // 25 cycles of 4 fills, then every fill arrives
  CHECK(filling().empty());
  CHECK(fs.fills.get() == 100);
  fetch.pop(60);
  fetch.cycle(400, warps);
  CHECK(filling() == std::vector<uint32_t>{60});
  for (uint64_t t = 401; t < 600; ++t) fetch.cycle(t, warps);
  // From warp 61 on, across the word boundary and the wrap: 63, 64, 99, 2;
  // warp 5 the cycle after.
  for (uint32_t w : {5u, 2u, 99u, 64u, 63u}) fetch.pop(w);
  fetch.cycle(600, warps);
  CHECK(filling() == std::vector<uint32_t>{2, 63, 64, 99});
  fetch.cycle(601, warps);
  CHECK(fetch.pending(5));
  CHECK(fs.fills.get() == 106);
}

namespace {

struct WorkloadRun {
  bool passed = false;
  uint64_t cycles = 0;
  std::map<std::string, double> measured;
};

// Workload `name` (small input) under timing on 4 SMs of the default
// configuration with pipeline.call_ret_cycles = `call_ret`.
WorkloadRun runWorkload(const std::string& name, uint32_t call_ret) {
  config::GpuConfig cfg;
  cfg.gpu.num_sms = 4;
  cfg.pipeline.call_ret_cycles = call_ret;
  const workloads::Workload* w = workloads::find(name);
  REQUIRE(w != nullptr);
  rt::DeviceOptions o;
  o.timing = true;
  o.gpu = &cfg;
  rt::Device dev(o);
  std::vector<std::filesystem::path> files;
  for (const std::string& m : w->modules()) files.push_back(std::filesystem::path(RFSIM_SOURCE_DIR) / m);
  dev.loadModules(files);
  const workloads::Check c = w->run(dev, workloads::Size::Small);
  WorkloadRun r;
  r.passed = c.passed;
  r.cycles = dev.totals().cycles;
  for (const workloads::Measured& m : c.measured) r.measured[m.name] = m.value;
  return r;
}

}  // namespace

TEST_CASE("FetchStage: a call or a return holds the next fill back", "[fetch]") {
  // ubench_calls: a chain of dependent calls, each a call and a return, and
  // the same adds inline. Each call and each return delays the warp's next
  // fill to at least 11 cycles after it issued: the call's cost grows by up
  // to 2 x 11 (less where the refetch it replaces already took that long),
  // and the inline adds, which neither call nor return, cost the same.
  const WorkloadRun plain = runWorkload("ubench_calls", 0), held = runWorkload("ubench_calls", 11);
  REQUIRE(plain.passed);
  REQUIRE(held.passed);
  const double grew = held.measured.at("call_overhead") - plain.measured.at("call_overhead");
  CHECK(grew >= 11.0);
  CHECK(grew <= 22.0);
  CHECK(held.measured.at("per_add") == plain.measured.at("per_add"));
  // A kernel without calls runs as before, cycle for cycle.
  CHECK(runWorkload("saxpy", 11).cycles == runWorkload("saxpy", 0).cycles);
}
