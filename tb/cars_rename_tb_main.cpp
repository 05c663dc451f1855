// cars_rename_tb: the rename unit's self-checking test bench as a program.
// Runs the directed cases on the reference and on reference + RTL in
// lockstep, then random traffic, and writes the RTL waveform with a GTKWave
// save file grouped by port and by warp state.
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include <CLI/CLI.hpp>
#include <systemc>
#include <fmt/format.h>

#include "cars_rename_directed.h"
#include "cars_rename_tb.h"
#include "common/error.h"
#include "common/gtkw.h"
#include "common/results_dir.h"
#include "mech/cars/rename_lockstep.h"
#include "mech/cars/rename_ref.h"
#include "mech/cars/rename_waves.h"

int sc_main(int argc, char** argv) {
  using namespace rfsim;
  CLI::App app{"cars_rename_tb: self-checking test bench of rtl/cars_rename.sv"};
  uint64_t cycles = 100000, seed = 1, trace_cycles = 400;
  std::string out = "build/tb";
  app.add_option("--cycles", cycles, "random cycles")->capture_default_str();
  app.add_option("--seed", seed, "random seed")->capture_default_str();
  app.add_option("--out", out, "folder for cars_rename.vcd and cars_rename.gtkw")->capture_default_str();
  app.add_option("--trace-cycles", trace_cycles, "cycles of the random run to trace")->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  try {
    const cars::RenameParams p = cars::RenameRtl::builtParams();
    cars::RenameRef ref(p);
    const uint64_t ref_checks = tb::runDirected(ref, tb::directedSteps());

    std::filesystem::create_directories(out);
    const auto vcd = std::filesystem::absolute(std::filesystem::path(out) / "cars_rename.vcd");
    cars::RenameLockstep dut(p);
    // The waveform covers the directed cases and the start of the random run.
    dut.rtl().traceTo(vcd, 0, 2000 + trace_cycles);
    const uint64_t rtl_checks = tb::runDirected(dut, tb::directedSteps());
    const uint64_t directed_cycles = dut.cycle();
    const tb::RandomResult r = tb::runRandom(dut, tb::stressTraffic(p.num_warps, seed), cycles);
    dut.rtl().closeTrace();
    writeFileAtomic(std::filesystem::path(out) / "cars_rename.gtkw",
                    gtkwSaveFile(cars::renameWaveView(p, vcd.string(), 0)));

    std::cout << fmt::format("directed: {} checks on the reference, {} on RTL+reference ({} cycles)\n", ref_checks,
                             rtl_checks, directed_cycles);
    std::cout << fmt::format(
        "random:   {} cycles, {} operations ({} applied, {} overflow traps, {} illegal refused), {} renames "
        "({} into stacks), max call depth {}, 0 mismatches\n",
        r.cycles, r.ops, r.acked, r.overflows, r.illegal, r.renames, r.stacked_renames, r.max_depth);
    std::cout << fmt::format("waveform: {}\n  gtkwave {} {}\n", vcd.string(), vcd.string(),
                             (std::filesystem::path(out) / "cars_rename.gtkw").string());
    std::cout << "1 passed, 0 failed\n";
    return 0;
  } catch (const Error& e) {
    std::cerr << "cars_rename_tb: FAILED: " << e.what() << "\n";
    std::cout << "0 passed, 1 failed\n";
    return 1;
  }
}
