#include <catch2/catch.hpp>

#include "mech/cars/cars_config.h"

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "cars_rename_directed.h"
#include "cars_rename_tb.h"
#include "config/gpu_config.h"
#include "mech/cars/rename_demo.h"
#include "mech/cars/rename_lockstep.h"

using namespace rfsim;
using namespace rfsim::cars;

TEST_CASE("RTL and reference agree on the directed cases", "[cars][rtl]") {
  RenameLockstep dut(RenameRtl::builtParams());
  CHECK(tb::runDirected(dut, tb::directedSteps()) > 200);
  CHECK(dut.comparisons() == dut.cycle());
}

TEST_CASE("RTL and reference agree cycle by cycle over 100 000 random cycles", "[cars][rtl]") {
  RenameLockstep dut(RenameRtl::builtParams());
  const tb::RandomResult r = tb::runRandom(dut, tb::stressTraffic(64, 11), 100000);
  CHECK(r.cycles == 100000);
  CHECK(dut.comparisons() == 100000);
  CHECK(r.overflows > 0);
  CHECK(r.illegal > 0);
  CHECK(r.acked > 30000);
}

TEST_CASE("the lockstep comparison names the field, warp and both values", "[cars][rtl]") {
  const RenameParams p = RenameParams::forSm(64, 2048, 4);
  Inputs in;
  in.op = OpRequest{true, Op::Push, 9, 0, 0, 2, 0};
  in.rd[2] = {12, 17};
  Outputs a, b;
  CHECK(diffOutputs(p, in, a, b).empty());
  b.rd_idx[2] = 99;
  CHECK(diffOutputs(p, in, a, b) == "rd_idx[2] (R17) of warp 12 (op push on warp 9): reference 0 rtl 99");
  b = a;
  b.dbg.rsp = 3;
  CHECK_THAT(diffOutputs(p, in, a, b), Catch::Contains("RSP"));
}

TEST_CASE("the Verilated model refuses a configuration it was not built for", "[cars][rtl]") {
  CHECK_THROWS_WITH(RenameRtl(RenameParams::forSm(32, 2048, 4)), Catch::Contains("built for 64 warps"));
}

TEST_CASE("SystemC demo: clocked co-simulation with the RTL in the loop writes a waveform", "[cars][rtl][systemc]") {
  config::GpuConfig cfg;  // the in-code defaults are the V100 values
  demoConfig(cfg).cycles = 20000;
  DemoOptions opt;
  opt.rtl = true;
  opt.vcd = std::filesystem::temp_directory_path() / ("rfsim-demo-" + std::to_string(::getpid()) + ".vcd");
  opt.trace_start = 100;
  opt.trace_cycles = 50;
  stats::Group root(nullptr, "sim");
  const DemoResult r = runRenameDemo(cfg, opt, root);
  CHECK(r.cycles == 20000);
  CHECK(r.rtl_comparisons == 20000);
  CHECK(r.flat["sim.rename.cycles"] == 20000);
  CHECK(r.flat["sim.rename.renames"] == 20000 * rfsim::cars::carsConfig(cfg).rename_ports);
  CHECK(r.flat["sim.rename.ops"]["call"].get<uint64_t>() > 100);
  CHECK(r.flat["sim.host.rtl_comparisons"] == 20000);
  std::ifstream vcd(opt.vcd);
  std::string text((std::istreambuf_iterator<char>(vcd)), {});
  CHECK_THAT(text, Catch::Contains("rfp_q[0]"));
  CHECK_THAT(text, Catch::Contains("#100000"));  // first traced cycle, 1000 ps per cycle
  CHECK_THAT(text, !Catch::Contains("#99000"));
  std::filesystem::remove(opt.vcd);
}
