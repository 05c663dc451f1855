// gpu::BlockSampler (sim.sample blocks): when a launch is stable enough to
// be cut, what its cycles are then, and a whole launch cut on a small GPU:
// the blocks run functionally still give the CPU check's output, and the
// extrapolated cycles stay near the full launch's.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "../mech/mech_test_util.h"
#include "gpu/block_sampler.h"
#include "gpu/gpu_stats.h"
#include "runtime/runtime.h"

using namespace rfsim;

TEST_CASE("block sampler: intervals as long as the first blocks lived, cut once the window agrees", "[gpu][sample]") {
  // 2 SMs, window 3: the first retirement at cycle 1000 sets 1000-cycle
  // intervals; then 500 warp instructions per interval.
  gpu::BlockSampler s(2, 200, 3, 0.02, 0.2, 1000);
  CHECK_FALSE(s.observe(400, false, 100, 100));  // nothing retired yet: no interval
  CHECK(s.nextPoint() == UINT64_MAX);
  CHECK_FALSE(s.observe(1000, true, 900, 100));
  CHECK(s.interval() == 1000);
  CHECK(s.nextPoint() == 2000);
  CHECK_FALSE(s.observe(1500, true, 1100, 100));  // a retirement inside an interval
  CHECK_FALSE(s.observe(2000, false, 1400, 100));
  CHECK_FALSE(s.observe(3000, false, 1900, 100));
  CHECK(s.observe(4000, false, 2400, 100));  // the third interval: 3 agree
  CHECK(s.cut());
  CHECK(s.intervals() == 3);
  CHECK(s.ipc() == Approx(0.5));
  CHECK(s.spread() == 0.0);  // the window that cut agreed exactly
  // 2000 more warp instructions at 0.5 per cycle after a drain ending at 9000.
  CHECK(s.extrapolate(9000, 2000) == 13000);
  CHECK(s.observe(1, false, 1, 0));  // stays cut
}

TEST_CASE("block sampler: no cut while the intervals disagree or nothing is left to skip", "[gpu][sample]") {
  SECTION("spread over the tolerance") {
    gpu::BlockSampler s(1, 200, 3, 0.02, 0.2, 1000);
    const uint64_t instrs[] = {0, 500, 1000, 1530, 2000, 2550, 3000};
    bool cut = false;
    for (int k = 0; k < 7; ++k) cut = cut || s.observe(1000 * uint64_t(k + 1), k == 0, instrs[k], 100);
    CHECK_FALSE(cut);
    CHECK(s.intervals() == 6);
    // The closest it came: the first window, 500, 500 and 530 warp
    // instructions in 1000 cycles each, spread (2 - 1.887) / 1.962.
    const double a = 1000.0 / 500, b = 1000.0 / 530;
    CHECK(s.spread() == Approx((a - b) / ((a + a + b) / 3)));
  }
  SECTION("fewer blocks left than SMs") {
    gpu::BlockSampler s(4, 200, 2, 0.02, 0.2, 1000);
    bool cut = false;
    for (int k = 0; k < 12; ++k) cut = cut || s.observe(100 * uint64_t(k + 1), k == 0, uint64_t(k) * 50, 3);
    CHECK_FALSE(cut);
  }
  SECTION("too few blocks started yet (sim.sample_min_share)") {
    gpu::BlockSampler s(1, 200, 2, 0.02, 0.5, 1000);
    CHECK_FALSE(s.observe(1000, true, 0, 150));
    CHECK_FALSE(s.observe(2000, false, 500, 140));
    CHECK_FALSE(s.observe(3000, false, 1000, 120));  // stable, but 80 of 200 started
    CHECK(s.observe(4000, false, 1500, 90));         // 110 started
  }
  SECTION("the L2 still filling, then full") {
    // 1000 L2 lines; 100 allocated per interval: no eviction while it fills.
    gpu::BlockSampler s(1, 200, 2, 0.02, 0.2, 1000);
    CHECK_FALSE(s.observe(1000, true, 0, 100, {0, 0}));
    CHECK_FALSE(s.observe(2000, false, 500, 100, {100, 0}));
    CHECK_FALSE(s.observe(3000, false, 1000, 100, {200, 0}));  // steady IPC, the L2 filling
    CHECK_FALSE(s.observe(4000, false, 1500, 100, {300, 40}));  // evicting, but under half
    CHECK(s.observe(5000, false, 2000, 100, {400, 140}));       // full: 100 in, 100 out
  }
  SECTION("an L2 the launch barely reaches") {
    gpu::BlockSampler s(1, 200, 2, 0.02, 0.2, 1000);
    CHECK_FALSE(s.observe(1000, true, 0, 100, {0, 0}));
    CHECK_FALSE(s.observe(2000, false, 500, 100, {4, 0}));
    CHECK(s.observe(3000, false, 1000, 100, {9, 0}));  // 9 lines in the window: under 1 %
  }
  SECTION("the DRAM falling behind, then keeping up") {
    // The L2 full (as many evictions as allocations) and the IPC steady, but
    // the DRAM's backlog grows by 500 cycles an interval of 1000: the rate is
    // not one the memory can sustain (saxpy's write-backs piling up).
    gpu::BlockSampler s(1, 200, 2, 0.02, 0.2, 1000);
    CHECK_FALSE(s.observe(1000, true, 0, 100, {0, 0, 100.0}));
    CHECK_FALSE(s.observe(2000, false, 500, 100, {100, 100, 600.0}));
    CHECK_FALSE(s.observe(3000, false, 1000, 100, {200, 200, 1100.0}));  // +1000 over 2000 cycles
    CHECK_FALSE(s.observe(4000, false, 1500, 100, {300, 300, 1130.0}));  // +530
    CHECK(s.observe(5000, false, 2000, 100, {400, 400, 1140.0}));        // +40: within 2 % of 2000
  }
  SECTION("an uncut sampler extrapolates nothing") {
    gpu::BlockSampler s(1, 200, 2, 0.02, 0.2, 1000);
    CHECK(s.extrapolate(1234, 999) == 1234);
  }
}

TEST_CASE("block sampler: a cut stands only if the blocks left do the work of those the window measured",
          "[gpu][sample]") {
  // 1 SM, window 2, block tolerance 5 %; blocks retired so far given at
  // each point: the window that cuts began with 10 retired.
  gpu::BlockSampler s(1, 200, 2, 0.02, 0.2, 1000, 0.05);
  CHECK_FALSE(s.observe(1000, true, 0, 150, {}, 1));
  CHECK_FALSE(s.observe(2000, false, 400, 140, {}, 10));
  CHECK_FALSE(s.observe(3000, false, 900, 130, {}, 20));  // 400 and 500: not steady
  CHECK(s.observe(4000, false, 1400, 120, {}, 30));       // steady: the window is 2000..4000
  CHECK(s.windowFirstBlock() == 10);
  CHECK(s.blockWorkDeviation() == 0.0);  // nothing compared yet
  SECTION("the blocks left do 3.4x the work (lt_raytrace's rows below the sky): withdrawn") {
    CHECK_FALSE(s.admit(2.4));
    CHECK_FALSE(s.cut());
    CHECK(s.refused() == 1);
    CHECK(s.blockWorkDeviation() == Approx(2.4));
    CHECK(s.extrapolate(9000, 2000) == 9000);  // nothing to extrapolate
    // The launch goes on, its intervals measured again: at 5000, 50 blocks
    // resident and 10 retired in the last 1000 cycles, a life of 5000
    // cycles by Little's law; the window starts again from there.
    CHECK_FALSE(s.observe(5000, false, 1900, 110, {}, 40));
    CHECK(s.interval() == 5000);
    CHECK(s.nextPoint() == 10000);
    CHECK_FALSE(s.observe(10000, false, 4400, 100, {}, 50));
    CHECK(s.observe(15000, false, 6900, 90, {}, 60));  // the next steady window is asked again
    CHECK(s.windowFirstBlock() == 40);
    CHECK(s.admit(0.04));  // within 5 %
    CHECK(s.cut());
    CHECK(s.ipc() == Approx(0.5));
    CHECK(s.refused() == 1);
  }
  SECTION("within the tolerance: the cut stands") {
    CHECK(s.admit(0.05));
    CHECK(s.cut());
    CHECK(s.refused() == 0);
  }
}

namespace {

struct Run {
  uint64_t cycles = 0, detailed = 0, extrapolated = 0, functional_blocks = 0, blocks = 0;
  bool passed = false;
};

// r2_3dconv (small: 5 launches of 256 blocks, one per plane of the volume)
// on a 2-SM V100: many waves of blocks doing the same work.
Run conv(const std::string& sample) {
  test::Run t = test::run(test::v100("none", {"gpu.num_sms=2", "sim.sample=" + sample}), "r2_3dconv");
  Run r;
  r.passed = t.passed;
  for (const auto& rec : t.records) {
    const auto& g = dynamic_cast<const gpu::GpuStats&>(*rec.gpu);
    r.cycles += rec.cycles;
    r.detailed += g.cycles.get();
    r.extrapolated += g.sample.cycles_extrapolated.get();
    r.functional_blocks += g.sample.blocks_functional.get();
    r.blocks += g.blocks.get() + g.sample.blocks_functional.get();
  }
  return r;
}

}  // namespace

TEST_CASE("block sampling: a launch cut on 2 SMs keeps its output and its cycles within 5 percent", "[gpu][sample]") {
  const Run full = conv("off"), cut = conv("blocks");
  REQUIRE(full.passed);
  // The blocks run functionally computed the digests the CPU check expects.
  CHECK(cut.passed);
  CHECK(full.functional_blocks == 0);
  CHECK(full.extrapolated == 0);
  CHECK(cut.functional_blocks > 0);
  CHECK(cut.blocks == full.blocks);
  // The launch's cycles: the detailed ones plus the extrapolated ones.
  CHECK(cut.cycles == cut.detailed + cut.extrapolated);
  CHECK(cut.detailed < full.detailed);
  const double err = double(cut.cycles) / double(full.cycles) - 1.0;
  INFO("full " << full.cycles << " sampled " << cut.cycles << " error " << err);
  CHECK(std::abs(err) <= 0.05);
}

namespace {

struct Rows {
  uint64_t cycles = 0, functional = 0, refused = 0;
  double deviation = 0.0, mix_deviation = 0.0;
  bool output_right = true;
};

// tests/gpu/data/<kernel>.ptx on a 2-SM V100: `blocks` blocks of 64
// threads, the first `split` of them `light` steps, the others `heavy`
// steps (rows: two loops, the heavy one with a load a step; sizes: one loop
// with a load a step).
Rows grid(const std::string& kernel, const std::vector<std::string>& sets, uint32_t blocks, uint32_t split,
          uint32_t light, uint32_t heavy) {
  std::vector<std::string> all{"gpu.num_sms=2"};
  all.insert(all.end(), sets.begin(), sets.end());
  const config::GpuConfig cfg = test::v100("none", all);
  rt::DeviceOptions o;
  o.timing = true;
  o.gpu = &cfg;
  rt::Device dev(o);
  dev.loadModule(std::filesystem::path(RFSIM_SOURCE_DIR) / ("tests/gpu/data/" + kernel + ".ptx"));
  const uint32_t threads = 64, n = blocks * threads;
  const uint64_t out = dev.malloc(n * 4), table = dev.malloc(65536 * 4);
  dev.memset(table, 0, 65536 * 4);
  rt::KernelArgs args;
  args.ptr(out);
  args.ptr(table);
  args.u32(split);
  args.u32(light);
  args.u32(heavy);
  dev.launch(kernel, {blocks, 1, 1}, {threads, 1, 1}, args);
  std::vector<uint32_t> got(n);
  dev.memcpyDtoH(got.data(), out, n * 4);
  Rows r;
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t x = i;
    for (uint32_t k = 0, steps = i / threads < split ? light : heavy; k < steps; ++k) x = x * 1664525u + 1013904223u;
    r.output_right = r.output_right && got[i] == x;
  }
  for (const auto& rec : dev.takeLaunchRecords()) {
    const auto& g = dynamic_cast<const gpu::GpuStats&>(*rec.gpu);
    r.cycles += rec.cycles;
    r.functional += g.sample.blocks_functional.get();
    r.refused += g.sample.cuts_refused.get();
    r.deviation = g.sample.work_deviation;
    r.mix_deviation = g.sample.mix_deviation;
  }
  return r;
}

// tests/gpu/data/rows.ptx: 2 000 blocks, the first `split` of them 16 steps
// of arithmetic, the others `heavy` steps with a load each.
Rows rows(const std::vector<std::string>& sets, uint32_t split, uint32_t heavy) {
  return grid("rows", sets, 2000, split, 16, heavy);
}

}  // namespace

// The blocks left must do the work of those measured (BlockSampler::admit):
// a grid whose first 30 % of blocks are light (lt_raytrace's empty sky) is
// cut in its light phase without that guard, and comes out far short; with
// it every cut is withdrawn and the launch runs on in detail (here to its
// end). A grid of equal blocks is cut as before.
TEST_CASE("block sampling: a launch is not cut while its blocks left do more work than those measured",
          "[gpu][sample]") {
  const Rows full = rows({"sim.sample=off"}, 600, 64);
  const Rows blind = rows({"sim.sample=blocks", "sim.sample_block_tolerance=100"}, 600, 64);
  const Rows guarded = rows({"sim.sample=blocks"}, 600, 64);
  CHECK(full.output_right);
  CHECK(blind.output_right);
  CHECK(guarded.output_right);
  REQUIRE(full.functional == 0);
  const double blind_err = double(blind.cycles) / double(full.cycles) - 1.0;
  const double guarded_err = double(guarded.cycles) / double(full.cycles) - 1.0;
  INFO("full " << full.cycles << ", without the guard " << blind.cycles << " (" << blind_err << "), with it "
               << guarded.cycles << " (" << guarded_err << "), cuts refused " << guarded.refused << ", deviation "
               << guarded.deviation);
  CHECK(blind.functional > 0);
  CHECK(blind.refused == 0);
  CHECK(blind_err < -0.15);  // the light blocks' rate, given to the heavy ones
  CHECK(guarded.refused > 0);
  CHECK(std::abs(guarded_err) <= 0.03);
  // Equal blocks: cut, no deviation.
  const Rows even_full = rows({"sim.sample=off"}, 0, 64), even = rows({"sim.sample=blocks"}, 0, 64);
  CHECK(even.output_right);
  CHECK(even.functional > 0);
  CHECK(even.refused == 0);
  CHECK(even.deviation == Approx(0.0).margin(1e-9));
  CHECK(std::abs(double(even.cycles) / double(even_full.cycles) - 1.0) <= 0.03);
}

// Compared by their instruction mix (sim.sample_block_compare: mix), blocks
// that do more or less of the same work are cut: the cycles extrapolated
// come from their warp instructions, counted exactly, at the window's rate,
// which is theirs too (lt_nqueens' searches of different depths). Blocks
// that do other work are not: rows' heavy blocks, with a load a step, are
// as far from its light ones in their mix as in their work.
TEST_CASE("block sampling: compared by their instruction mix, blocks doing more of the same work are cut",
          "[gpu][sample]") {
  const std::vector<std::string> mix{"sim.sample=blocks", "sim.sample_block_compare=mix"};
  // 30 % of the blocks 96 steps, the rest 384 of the same loop.
  const Rows full = grid("sizes", {"sim.sample=off"}, 600, 180, 96, 384);
  const Rows by_work = grid("sizes", {"sim.sample=blocks"}, 600, 180, 96, 384);
  const Rows by_mix = grid("sizes", mix, 600, 180, 96, 384);
  CHECK(full.output_right);
  CHECK(by_work.output_right);
  CHECK(by_mix.output_right);
  REQUIRE(full.functional == 0);
  const double err = double(by_mix.cycles) / double(full.cycles) - 1.0;
  INFO("full " << full.cycles << ", by work " << by_work.cycles << " (refused " << by_work.refused << ", functional "
               << by_work.functional << "), by mix " << by_mix.cycles << " (" << err << ", functional "
               << by_mix.functional << ", mix deviation " << by_mix.mix_deviation << ")");
  CHECK(by_work.refused > 0);  // the blocks left do 4x the work of the first ones
  CHECK(by_mix.functional > by_work.functional);
  CHECK(by_mix.mix_deviation <= 0.02);
  CHECK(std::abs(err) <= 0.03);
  // Other work: not cut while the heavy blocks are left.
  const Rows rows_full = rows({"sim.sample=off"}, 600, 64), rows_mix = rows(mix, 600, 64);
  const double rows_err = double(rows_mix.cycles) / double(rows_full.cycles) - 1.0;
  INFO("rows: full " << rows_full.cycles << ", by mix " << rows_mix.cycles << " (" << rows_err << "), refused "
                     << rows_mix.refused << ", mix deviation " << rows_mix.mix_deviation);
  CHECK(rows_mix.output_right);
  CHECK(rows_mix.refused > 0);
  CHECK(std::abs(rows_err) <= 0.03);
}

// A launch that runs CARS' or R2D2's code is cut too, but the blocks it
// leaves run the base code: the functional model does not have the state
// that code keeps in the mechanism's hardware. CARS' code for sssp on one
// SM, run functionally, lost its callee-saved values (the callee's
// registers are the caller's without the rename unit) and loaded out of
// bounds; with the base code every output is right. The base code's
// instructions are scaled by the launch's code's over the base code's on
// the blocks run in detail: r2_kmeans' first blocks do 16 % more work than
// the rest, so the detailed blocks' mean (R2D2's +10.5 %) will not do.
TEST_CASE("block sampling: a launch running CARS' or R2D2's code leaves its blocks to the base code",
          "[gpu][sample][mech]") {
  const test::Run cars = test::run(test::v100("cars", {"mechanisms.cars.rtl=false", "compiler.callee_saved=contiguous",
                                                       "gpu.num_sms=1", "sim.sample=blocks"}),
                                   "sssp");
  CHECK(cars.passed);
  auto titanv = [](const std::string& sample) {
    config::GpuConfig c = config::loadConfig(std::string(RFSIM_SOURCE_DIR) + "/configs/titanv.yaml");
    mech::select(c, "r2d2");
    config::applyOverride(c, "gpu.num_sms=2");
    config::applyOverride(c, "sim.sample=" + sample);
    config::validate(c, "test");
    return test::run(c, "r2_kmeans");
  };
  const test::Run full = titanv("off"), cut = titanv("blocks");
  REQUIRE(full.passed);
  CHECK(cut.passed);
  uint64_t functional = 0, full_cycles = 0, cut_cycles = 0;
  for (const auto& rec : cut.records) {
    const auto& g = dynamic_cast<const gpu::GpuStats&>(*rec.gpu);
    functional += g.sample.blocks_functional.get();
    CHECK(rec.cycles == g.cycles.get() + g.sample.cycles_extrapolated.get());
    if (g.sample.blocks_functional.get()) CHECK(rec.variant == "r2d2");
    cut_cycles += rec.cycles;
  }
  for (const auto& rec : full.records) full_cycles += rec.cycles;
  CHECK(functional > 0);
  const double err = double(cut_cycles) / double(full_cycles) - 1.0;
  INFO("full " << full_cycles << " sampled " << cut_cycles << " error " << err);
  CHECK(std::abs(err) <= 0.02);
}

// LTRF's code (prefetch instructions without an architectural effect) and
// RegDem's (demoted registers in shared memory) compute their values in the
// functional model as on their hardware (Mechanism::codeRunsFunctionally):
// their launches are cut like the base code's, and the blocks run
// functionally compute what the CPU check expects.
TEST_CASE("block sampling: a launch running LTRF's code is cut and keeps its output", "[gpu][mech][sample]") {
  const test::Run r = test::run(test::v100("ltrf", {"gpu.num_sms=2", "sm.scheduler=two_level", "sim.sample=blocks"}),
                                "lt_kmeans");
  CHECK(r.passed);
  uint64_t functional = 0;
  bool ltrf_code = false;
  for (const auto& rec : r.records) {
    functional += dynamic_cast<const gpu::GpuStats&>(*rec.gpu).sample.blocks_functional.get();
    ltrf_code = ltrf_code || rec.variant == "ltrf";
  }
  CHECK(ltrf_code);
  CHECK(functional > 0);
}
