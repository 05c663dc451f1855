// The SM clocked by SystemC (model/gpu/gpu_top.h, KernelRunner::Mode::
// SystemC): the same cycles, statistics and output as the plain loop; many
// launches in one process; errors thrown inside the clocked process reach
// the caller and the next launch still runs.
//
// Each run has a simulation (gpu::Simulation, its own SystemC kernel) of its
// own unless a test shares one across launches on purpose; the executable
// runs them all in one process, which is part of what they test (ctest runs
// each alone).
#include <catch2/catch.hpp>

#include <cstring>
#include <functional>
#include <memory>

#include <fmt/format.h>
#include <systemc>

#include "../func/machine_helpers.h"
#include "backend/backend.h"
#include "sm_test_util.h"
#include "common/error.h"
#include "config/gpu_config.h"
#include "func/memory.h"
#include "func/program.h"
#include "ptx/parser.h"
#include "common/sc_kernel.h"
#include "gpu/gpu_top.h"
#include "gpu/simulation.h"
#include "gpu/kernel_runner.h"
#include "mem/tlm/hierarchy.h"

using namespace rfsim;
using namespace rfsim::test;
using Mode = gpu::KernelRunner::Mode;

namespace {

// sm_test_util.h's runTimed in a given mode, on a given simulation.
Timed runTimed(Loaded& ld, const Launch& l, const config::GpuConfig& cfg, uint32_t regs, Mode mode,
               gpu::Simulation* sim = nullptr) {
  gpu::KernelRunner::Options opt;
  opt.mode = mode;
  opt.sim = sim;
  return test::runTimed(ld, l, cfg, regs, opt);
}

// A fresh load of `c` run once in `mode`.
Timed runCase(const Case& c, const config::GpuConfig& cfg, Mode mode) {
  Loaded probe(c.ptx, "");
  Loaded ld(c.ptx, c.make(probe.mem).kernel);
  const Launch l = c.make(ld.mem);
  return runTimed(ld, l, cfg, ld.tree_regs, mode);
}

const std::string kHead = ".version 9.0\n.target sm_75\n.address_size 64\n";

Timed runMicro(const std::string& body, const config::GpuConfig& cfg, uint32_t threads, Mode mode) {
  const std::string text = kHead + ".visible .entry k(.param .u64 out)\n{\n"
                           "  .reg .b32 %R<64>;\n  .reg .b64 %RD<16>;\n  .reg .pred %P<4>;\n"
                           "  ld.param.u64 %RD8, [out];\n" + body + "  ret;\n}\n";
  Loaded ld(test::parseMachine(text));
  const uint64_t out = buffer(ld.mem, std::vector<uint8_t>(4096, 0));
  Launch l{"k", {1, 1, 1}, {threads, 1, 1}, 0, {arg(out)}, {{out, 16}}};
  return runTimed(ld, l, cfg, 64, mode);
}

// Two warps waiting at different barriers: the SM watchdog's deadlock.
const std::string kDeadlock = "  mov.u32 %R2, %tid.x;\n  setp.ge.u32 %P0, %R2, 32;\n  @%P0 bra OTHER;\n"
                              "  bar.sync 0;\n  bra.uni END;\nOTHER:\n  bar.sync 1;\nEND:\n";
// A store outside device memory: the functional model's error.
const std::string kBadStore = "  mov.u64 %RD2, 16;\n  mov.u32 %R4, 7;\n  st.global.u32 [%RD2], %R4;\n";
const std::string kGood = "  mov.u32 %R2, %tid.x;\n  add.u32 %R3, %R2, 5;\n  st.global.u32 [%RD8], %R3;\n";

// SM slots in lockstep (a TLM-2.0 quantum of one cycle): what the loop does.
config::GpuConfig lockstep() {
  config::GpuConfig cfg;
  cfg.sim.quantum_cycles = 1;
  return cfg;
}

void checkSame(const Timed& loop, const Timed& sc) {
  CHECK(sc.r.cycles == loop.r.cycles);
  CHECK(sc.r.warp_instrs == loop.r.warp_instrs);
  CHECK(sc.r.blocks == loop.r.blocks);
  CHECK(sc.stats == loop.stats);
  CHECK(sc.out == loop.out);
}

}  // namespace

TEST_CASE("SystemC and loop modes give the same cycles, statistics and output", "[systemc]") {
  const config::GpuConfig cfg = lockstep();
  for (const Case& c : cases()) {
    INFO(c.name);
    const Timed loop = runCase(c, cfg, Mode::Loop);
    const Timed sc = runCase(c, cfg, Mode::SystemC);
    CHECK(loop.r.cycles > 0);
    checkSame(loop, sc);
  }
}

TEST_CASE("several launches on one program run in one SystemC simulation", "[systemc]") {
  const config::GpuConfig cfg = lockstep();
  // saxpy three times over the same y (each launch reads the last's output
  // and finds the L2 the last one left), then sgemm, in both modes, each
  // mode in a simulation of its own; the modes agree launch by launch.
  gpu::Simulation sim_loop, sim_sc;
  Loaded la(kWl + "saxpy/saxpy.ptx", "saxpy"), lb(kWl + "saxpy/saxpy.ptx", "saxpy");
  const Launch sa = saxpyLaunch(la.mem, 2048, {8, 1, 1}), sb = saxpyLaunch(lb.mem, 2048, {8, 1, 1});
  gpu::GpuTop& top = sim_sc.top(cfg);
  auto now = [&] {
    ScKernel::Scope in(sim_sc.kernel());
    return sc_core::sc_time_stamp();
  };
  sc_core::sc_time last = now();
  uint64_t first_cycles = 0;
  for (int i = 0; i < 3; ++i) {
    INFO("saxpy launch " << i);
    const Timed loop = runTimed(la, sa, cfg, la.tree_regs, Mode::Loop, &sim_loop);
    const Timed sc = runTimed(lb, sb, cfg, lb.tree_regs, Mode::SystemC, &sim_sc);
    checkSame(loop, sc);
    // Simulated time goes on across launches, at least by the kernel's cycles.
    const sc_core::sc_time t = now();
    CHECK(t - last >= top.period() * double(sc.r.cycles - 1));
    last = t;
    // The later launches find x and y in the L2 the first one filled.
    if (i == 0) first_cycles = sc.r.cycles;
    else CHECK(sc.r.cycles < first_cycles);
  }
  Loaded ga(kWl + "sgemm/sgemm.ptx", "sgemm_tiled"), gb(kWl + "sgemm/sgemm.ptx", "sgemm_tiled");
  const Launch ma = sgemmLaunch(ga.mem, 32), mb = sgemmLaunch(gb.mem, 32);
  checkSame(runTimed(ga, ma, cfg, ga.tree_regs, Mode::Loop, &sim_loop),
            runTimed(gb, mb, cfg, gb.tree_regs, Mode::SystemC, &sim_sc));
  ScKernel::Scope in(sim_sc.kernel());
  CHECK(sc_core::sc_get_status() == sc_core::SC_PAUSED);
}

TEST_CASE("an error inside the clocked process reaches the caller, and the next launch runs", "[systemc]") {
  config::GpuConfig cfg = lockstep();
  cfg.pipeline.watchdog_cycles = 2000;
  const Timed before = runMicro(kGood, cfg, 64, Mode::Loop);
  for (int round = 0; round < 2; ++round) {
    INFO("round " << round);
    try {
      runMicro(kDeadlock, cfg, 64, Mode::SystemC);
      FAIL("no deadlock reported");
    } catch (const Error& e) {
      const std::string m = e.what();
      INFO(m);
      CHECK(m.find("deadlock") != std::string::npos);
      CHECK(m.find("warp 0: at barrier") != std::string::npos);
      CHECK(m.find("barrier 1") != std::string::npos);
    }
    checkSame(before, runMicro(kGood, cfg, 64, Mode::SystemC));
    try {
      runMicro(kBadStore, cfg, 32, Mode::SystemC);
      FAIL("no memory error reported");
    } catch (const Error& e) {
      const std::string m = e.what();
      INFO(m);
      CHECK(m.find("st.global.u32 out of bounds at 0x10") != std::string::npos);
    }
    checkSame(before, runMicro(kGood, cfg, 64, Mode::SystemC));
  }
}

TEST_CASE("a simulation's GPU top refuses a second clock or a bigger chip", "[systemc]") {
  config::GpuConfig cfg = lockstep();
  gpu::Simulation sim;
  gpu::GpuTop& top = sim.top(cfg);
  CHECK(top.numSlots() == cfg.gpu.num_sms);
  CHECK(top.period() == sc_core::sc_time(883, sc_core::SC_PS));  // 1132 MHz
  config::GpuConfig other = cfg;
  other.gpu.clock_mhz = 1000.0;
  CHECK_THROWS_AS(sim.top(other), Error);
  config::GpuConfig more = cfg;
  more.gpu.num_sms = cfg.gpu.num_sms + 1;
  CHECK_THROWS_AS(sim.top(more), Error);
  config::GpuConfig slices = cfg;
  slices.l2.num_slices = 32;
  CHECK_THROWS_AS(sim.top(slices), Error);
  // Another simulation is another chip: any shape.
  gpu::Simulation sim2;
  CHECK(sim2.top(more).numSlots() == more.gpu.num_sms);
  CHECK(sim2.top(more).period() == sc_core::sc_time(883, sc_core::SC_PS));
  const Timed t = runMicro(kGood, cfg, 32, Mode::SystemC);  // still usable
  CHECK(t.r.cycles > 0);
}

// Simulation speed of the two modes (not run by default: [.speed]).
TEST_CASE("simulation speed: SystemC vs loop on saxpy and sgemm", "[.speed][systemc]") {
  const config::GpuConfig cfg = lockstep();
  auto report = [](const char* name, const Timed& loop, const Timed& sc) {
    const double lr = loop.r.warp_instrs / loop.r.host_seconds, sr = sc.r.warp_instrs / sc.r.host_seconds;
    WARN(name << ": " << loop.r.cycles << " cycles, " << loop.r.warp_instrs << " warp instrs; loop "
              << lr << " warp instr/s (" << loop.r.cycles / loop.r.host_seconds << " cycles/s), SystemC " << sr
              << " warp instr/s (" << sc.r.cycles / sc.r.host_seconds << " cycles/s), SystemC/loop "
              << sr / lr);
  };
  for (int rep = 0; rep < 2; ++rep) {
    Loaded a(kWl + "saxpy/saxpy.ptx", "saxpy"), b(kWl + "saxpy/saxpy.ptx", "saxpy");
    const int n = 1 << 18;
    const Launch la = saxpyLaunch(a.mem, n, {64, 1, 1}), lb = saxpyLaunch(b.mem, n, {64, 1, 1});
    const Timed loop = runTimed(a, la, cfg, a.tree_regs, Mode::Loop);
    const Timed sc = runTimed(b, lb, cfg, b.tree_regs, Mode::SystemC);
    CHECK(loop.r.cycles == sc.r.cycles);
    report("saxpy", loop, sc);
  }
  for (int rep = 0; rep < 2; ++rep) {
    Loaded a(kWl + "sgemm/sgemm.ptx", "sgemm_tiled"), b(kWl + "sgemm/sgemm.ptx", "sgemm_tiled");
    const Launch la = sgemmLaunch(a.mem, 128), lb = sgemmLaunch(b.mem, 128);
    const Timed loop = runTimed(a, la, cfg, a.tree_regs, Mode::Loop);
    const Timed sc = runTimed(b, lb, cfg, b.tree_regs, Mode::SystemC);
    CHECK(loop.r.cycles == sc.r.cycles);
    report("sgemm", loop, sc);
  }
}
