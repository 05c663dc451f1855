// The GPU around the SMs (model/gpu/): the thread-block scheduler against
// the occupancy calculator, many SMs sharing the memory hierarchy, idle-
// cycle skipping (identical statistics), the TLM-2.0 quantum, and a warm L2
// across launches.
#include <catch2/catch.hpp>

#include <algorithm>

#include "../sm_core/sm_test_util.h"
#include "common/error.h"
#include "config/gpu_config.h"
#include "gpu/simulation.h"
#include "gpu/kernel_runner.h"
#include "mem/tlm/hierarchy.h"
#include "stats/stats.h"

using namespace rfsim;
using namespace rfsim::test;
using Mode = gpu::KernelRunner::Mode;

namespace {

struct Run {
  gpu::KernelRunResult r;
  nlohmann::json stats;  // flat: root.sm<i>.*, root.gpu.*
  std::vector<std::vector<uint8_t>> out;
  uint32_t occupancy_blocks = 0;
};

Run run(Loaded& ld, const Launch& l, const config::GpuConfig& cfg, gpu::KernelRunner::Options opt) {
  const func::LaunchSetup setup = ld.prog->setupLaunch(l.kernel, l.grid, l.block, l.args, l.dynamic_shared);
  rt::LaunchStats ls;
  stats::Group root(nullptr, "root");
  Run t;
  {
    // Every comparison starts from the same (empty) memory hierarchy: the
    // runner's own simulation, unless opt names one.
    gpu::KernelRunner kr(cfg, *ld.prog, setup, ls, ld.tree_regs, &root, opt);
    t.r = kr.run();
    t.occupancy_blocks = kr.sm(0).occupancy().blocks;
    t.stats = stats::toFlatJson(root);
  }
  t.out = readOutputs(ld.mem, l);
  return t;
}

uint64_t u(const Run& t, const std::string& k) { return t.stats.at("root." + k).get<uint64_t>(); }

config::GpuConfig smallGpu(uint32_t sms) {
  config::GpuConfig cfg;  // v100 memory shape, fewer SMs in use
  (void)sms;
  cfg.sim.quantum_cycles = 1;
  return cfg;
}

std::vector<uint8_t> saxpyExpect(int n) {
  std::vector<uint8_t> b(size_t(n) * 4);
  for (int i = 0; i < n; ++i) {
    const float x = float(i % 29) * 0.5f, y = float(i % 7) - 3;
    const float v = 2.5f * x + y;
    std::memcpy(b.data() + size_t(i) * 4, &v, 4);
  }
  return b;
}

}  // namespace

TEST_CASE("block scheduler: blocks dealt breadth-first, then each SM filled to its occupancy", "[gpu]") {
  const config::GpuConfig cfg = smallGpu(4);
  SECTION("fewer blocks than SMs: one block per SM") {
    Loaded ld(kWl + "saxpy/saxpy.ptx", "saxpy");
    const Launch l = saxpyLaunch(ld.mem, 3 * 256, {3, 1, 1});
    const Run t = run(ld, l, cfg, {Mode::Loop, 4});
    for (int i = 0; i < 3; ++i) CHECK(u(t, "sm" + std::to_string(i) + ".blocks_retired") == 1);
    CHECK(u(t, "sm3.blocks_retired") == 0);
    CHECK(u(t, "sm3.cycles") == 0);  // an SM without work is never ticked
    CHECK(t.out[0] == saxpyExpect(3 * 256));
  }
  SECTION("a large grid: every SM holds occupancy-many blocks at once") {
    Loaded ld(kWl + "saxpy/saxpy.ptx", "saxpy");
    const int blocks = 4 * 8 * 3;  // 3 waves of 8 blocks (2048 threads / 256) on 4 SMs
    const Launch l = saxpyLaunch(ld.mem, blocks * 256, {uint32_t(blocks), 1, 1});
    const Run t = run(ld, l, cfg, {Mode::Loop, 4});
    CHECK(t.occupancy_blocks == 8);
    uint64_t total = 0;
    for (int i = 0; i < 4; ++i) {
      INFO("sm " << i);
      CHECK(u(t, "sm" + std::to_string(i) + ".max_resident_blocks") == t.occupancy_blocks);
      total += u(t, "sm" + std::to_string(i) + ".blocks_retired");
    }
    CHECK(total == uint64_t(blocks));
    CHECK(u(t, "gpu.blocks") == uint64_t(blocks));
    CHECK(t.out[0] == saxpyExpect(blocks * 256));
  }
  SECTION("shared memory limits the blocks per SM") {
    Loaded ld(kWl + "saxpy/saxpy.ptx", "saxpy");
    Launch l = saxpyLaunch(ld.mem, 64 * 256, {64, 1, 1});
    l.dynamic_shared = 40 * 1024;  // 96 KiB / 40 KiB: 2 blocks per SM
    const Run t = run(ld, l, cfg, {Mode::Loop, 4});
    CHECK(t.occupancy_blocks == 2);
    for (int i = 0; i < 4; ++i) CHECK(u(t, "sm" + std::to_string(i) + ".max_resident_blocks") == 2);
    CHECK(t.out[0] == saxpyExpect(64 * 256));
  }
  SECTION("a block that fits no SM is an error naming the kernel") {
    Loaded ld(kWl + "saxpy/saxpy.ptx", "saxpy");
    Launch l = saxpyLaunch(ld.mem, 256, {1, 1, 1});
    l.dynamic_shared = 200 * 1024;
    try {
      run(ld, l, cfg, {Mode::Loop, 4});
      FAIL("no error");
    } catch (const Error& e) {
      CHECK_THAT(e.what(), Catch::Contains("saxpy"));
    }
  }
}

TEST_CASE("idle-cycle skipping gives the statistics of ticking every cycle", "[gpu]") {
  const config::GpuConfig cfg = smallGpu(8);
  for (const Case& c : cases()) {
    INFO(c.name);
    Loaded a(c.ptx, ""), b(c.ptx, "");
    Loaded la(c.ptx, c.make(a.mem).kernel), lb(c.ptx, c.make(b.mem).kernel);
    const Launch ma = c.make(la.mem), mb = c.make(lb.mem);
    const Run every = run(la, ma, cfg, {Mode::Loop, 8, false});
    const Run skip = run(lb, mb, cfg, {Mode::Loop, 8, true});
    CHECK(skip.r.cycles == every.r.cycles);
    // The ticks are the host's work: every cycle ticked, or fewer.
    CHECK(u(every, "gpu.sm.ticks") == u(every, "gpu.sm.cycles"));
    CHECK(u(skip, "gpu.sm.ticks") < u(every, "gpu.sm.ticks"));
    nlohmann::json sa = skip.stats, ea = every.stats;
    for (nlohmann::json* j : {&sa, &ea})
      for (auto it = j->begin(); it != j->end();) {
        const std::string& k = it.key();
        it = k.size() > 6 && k.compare(k.size() - 6, 6, ".ticks") == 0 ? j->erase(it) : std::next(it);
      }
    INFO(diffKeys(sa, ea));
    CHECK(sa == ea);
    CHECK(skip.out == every.out);
  }
}

TEST_CASE("a launch's fixed cost: reported beside its cycles, which it leaves as they were", "[gpu]") {
  config::GpuConfig none = smallGpu(4);
  none.gpu.launch_overhead_ns = 0.0;
  config::GpuConfig charged = none;
  charged.gpu.launch_overhead_ns = 7104.0;
  // 7104 ns at v100's 1132 MHz: 8041.7 cycles, rounded to 8042.
  Loaded a(kWl + "saxpy/saxpy.ptx", "saxpy"), b(kWl + "saxpy/saxpy.ptx", "saxpy");
  const Launch la = saxpyLaunch(a.mem, 8 * 256, {8, 1, 1}), lb = saxpyLaunch(b.mem, 8 * 256, {8, 1, 1});
  const Run plain = run(a, la, none, {Mode::Loop, 4});
  const Run paid = run(b, lb, charged, {Mode::Loop, 4});
  CHECK(u(plain, "gpu.launch_overhead_cycles") == 0);
  CHECK(u(plain, "gpu.cycles_with_launch") == plain.r.cycles);
  CHECK(u(paid, "gpu.launch_overhead_cycles") == 8042);
  CHECK(u(paid, "gpu.cycles_with_launch") == paid.r.cycles + 8042);
  // The launch's cycles, from its first block to its last, and every other
  // statistic are those of the launch without the cost.
  CHECK(paid.r.cycles == plain.r.cycles);
  CHECK(u(paid, "gpu.cycles") == u(plain, "gpu.cycles"));
  nlohmann::json rest = paid.stats;
  rest.erase("root.gpu.launch_overhead_cycles");
  rest.erase("root.gpu.cycles_with_launch");
  nlohmann::json want = plain.stats;
  want.erase("root.gpu.launch_overhead_cycles");
  want.erase("root.gpu.cycles_with_launch");
  INFO(diffKeys(rest, want));
  CHECK(rest == want);
  CHECK(paid.out == plain.out);
  // Launches summed (a workload's total): the cost once per launch.
  gpu::GpuStats sum(nullptr, "gpu", charged, 4);
  const func::LaunchSetup setup = b.prog->setupLaunch(lb.kernel, lb.grid, lb.block, lb.args, lb.dynamic_shared);
  for (int i = 0; i < 2; ++i) {
    rt::LaunchStats ls;
    gpu::KernelRunner kr(charged, *b.prog, setup, ls, b.tree_regs, nullptr, {Mode::Loop, 4});
    kr.run();
    stats::accumulate(sum, kr.stats(), stats::Accumulate::kOverTime);
  }
  CHECK(sum.launch_overhead_cycles.get() == 2 * 8042);
  CHECK(sum.cycles_with_launch.get() == sum.cycles.get() + 2 * 8042);
}

TEST_CASE("80 SMs share the L2: saxpy over many blocks is correct and uses every SM", "[gpu]") {
  config::GpuConfig cfg;
  Loaded ld(kWl + "saxpy/saxpy.ptx", "saxpy");
  const int n = 160 * 256;
  const Launch l = saxpyLaunch(ld.mem, n, {160, 1, 1});
  const Run t = run(ld, l, cfg, {Mode::SystemC, 0});
  CHECK(t.out[0] == saxpyExpect(n));
  for (int i = 0; i < 80; ++i) CHECK(u(t, "sm" + std::to_string(i) + ".blocks_retired") == 2);
  // Every x and y line is read once from DRAM (nothing is cached yet).
  const uint64_t lines = 2ull * n * 4 / 128;
  CHECK(u(t, "gpu.mem.l2.misses") >= lines);
  CHECK(t.stats.at("root.gpu.mem.dram.read_bytes").get<uint64_t>() >= lines * 128);
}

TEST_CASE("the TLM-2.0 quantum: lockstep equals the loop, a larger quantum keeps the output", "[gpu][systemc]") {
  config::GpuConfig q1;
  q1.sim.quantum_cycles = 1;
  config::GpuConfig q16 = q1;
  q16.sim.quantum_cycles = 16;
  Loaded a(kWl + "sgemm/sgemm.ptx", "sgemm_tiled"), b(kWl + "sgemm/sgemm.ptx", "sgemm_tiled"),
      c(kWl + "sgemm/sgemm.ptx", "sgemm_tiled");
  const Launch la = sgemmLaunch(a.mem, 64), lb = sgemmLaunch(b.mem, 64), lc = sgemmLaunch(c.mem, 64);
  const Run loop = run(a, la, q1, {Mode::Loop, 0});
  const Run sc1 = run(b, lb, q1, {Mode::SystemC, 0});
  const Run sc16 = run(c, lc, q16, {Mode::SystemC, 0});
  CHECK(sc1.r.cycles == loop.r.cycles);
  INFO(diffKeys(sc1.stats, loop.stats));
  CHECK(sc1.stats == loop.stats);
  CHECK(sc16.out == loop.out);
  CHECK(sc16.r.warp_instrs == loop.r.warp_instrs);
  // Requests from SMs up to a quantum apart meet in the shared queues in
  // another order: cycles move a little, not much.
  CHECK(double(sc16.r.cycles) == Approx(double(loop.r.cycles)).epsilon(0.05));
}

TEST_CASE("the L2 keeps its content across launches", "[gpu]") {
  config::GpuConfig cfg;
  Loaded ld(kWl + "saxpy/saxpy.ptx", "saxpy");
  const int n = 32 * 256;
  const Launch l = saxpyLaunch(ld.mem, n, {32, 1, 1});
  gpu::Simulation sim;  // one GPU for both launches
  const Run cold = run(ld, l, cfg, {Mode::SystemC, 0, true, &sim});
  // A second launch on the same GPU: x and y are in the L2 now.
  const func::LaunchSetup setup = ld.prog->setupLaunch(l.kernel, l.grid, l.block, l.args, l.dynamic_shared);
  rt::LaunchStats ls;
  gpu::KernelRunner kr(cfg, *ld.prog, setup, ls, ld.tree_regs, nullptr, {Mode::SystemC, 0, true, &sim});
  const gpu::KernelRunResult warm = kr.run();
  const auto js = stats::toFlatJson(kr.stats());
  CHECK(js.at("gpu.mem.l2.misses").get<uint64_t>() == 0);
  CHECK(js.at("gpu.mem.dram.read_bytes").get<uint64_t>() == 0);
  CHECK(warm.cycles < cold.r.cycles);
  // Another simulation is another GPU: its L2 starts empty.
  const Run fresh = run(ld, l, cfg, {Mode::SystemC, 0});
  CHECK(fresh.r.cycles == cold.r.cycles);
  CHECK(fresh.stats == cold.stats);
}
