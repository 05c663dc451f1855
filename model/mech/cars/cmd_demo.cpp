// `rfsim demo`: the rename-unit demo (rename_demo.h) as a subcommand.
// Synthetic call/return traffic through the rename unit, its Verilated RTL
// and C++ reference in lockstep; the results folder holds the resolved
// configuration, stats.json and, with --trace, the unit's waveform with its
// GTKWave save file.
#include "mech/cars/cmd_demo.h"

#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "common/error.h"
#include "common/results_dir.h"
#include "config/config_io.h"
#include "mech/cars/cars_config.h"
#include "mech/cars/rename_demo.h"
#include "mech/cars/rename_waves.h"

namespace rfsim::cars {

namespace {

void printSummary(const nlohmann::json& flat, const DemoResult& r, bool rtl) {
  auto v = [&](const char* key) { return flat.at(key); };
  std::cout << fmt::format("  cycles             {}\n", r.cycles);
  std::cout << fmt::format("  operations         {} launch / {} call / {} ret / {} push / {} pop\n",
                           v("sim.rename.ops").at("launch").get<uint64_t>(), v("sim.rename.ops").at("call").get<uint64_t>(),
                           v("sim.rename.ops").at("ret").get<uint64_t>(), v("sim.rename.ops").at("push").get<uint64_t>(),
                           v("sim.rename.ops").at("pop").get<uint64_t>());
  std::cout << fmt::format("  overflow traps     {}\n", v("sim.rename.overflow_traps").get<uint64_t>());
  std::cout << fmt::format("  renames            {} ({:.1f} % into register stacks)\n",
                           v("sim.rename.renames").get<uint64_t>(),
                           100.0 * v("sim.rename.stacked_share").get<double>());
  std::cout << fmt::format("  RTL in the loop    {}\n",
                           rtl ? fmt::format("yes, {} cycles compared, 0 mismatches", r.rtl_comparisons) : "no");
  std::cout << fmt::format("  speed              {:.0f} cycles/s ({:.3f} s)\n",
                           r.host_seconds > 0 ? r.cycles / r.host_seconds : 0.0, r.host_seconds);
}

int runDemo(const mech::CommandRun& run) {
  config::GpuConfig cfg = run.cfg;
  CarsConfig& cc = carsConfig(cfg);
  const bool quiet = run.options.count("quiet") > 0;
  if (run.options.count("rtl")) cc.rtl = true;
  if (run.options.count("no-rtl")) cc.rtl = false;
  if (run.options.count("trace")) cc.trace = true;
  if (cc.trace && !cc.rtl)
    throw Error(fmt::format("{}: mechanisms.cars.trace: the waveform is of the RTL, which mechanisms.cars.rtl: false (or --no-rtl) "
                            "leaves out",
                            run.config_file));

  ResultsDir dir(run.out, run.overwrite);
  dir.writeFile("config.yaml", config::toYaml(cfg));

  DemoOptions d;
  d.rtl = cc.rtl;
  d.source = run.config_file;
  if (cc.trace) {
    d.vcd = dir.path("cars_rename.vcd");
    d.trace_start = cc.trace_start;
    d.trace_cycles = cc.trace_cycles;
  }
  if (!quiet)
    std::cout << fmt::format("rfsim demo: {} ({}), CARS rename unit, {} warps, {} cycles, RTL {}\n", cfg.name,
                             run.config_file, cfg.sm.max_warps, demoConfig(cfg).cycles, cc.rtl ? "on" : "off");

  stats::Group root(nullptr, "sim", "rename-unit co-simulation demo");
  DemoResult r;
  try {
    r = runRenameDemo(cfg, d, root);
  } catch (const std::exception& e) {
    dir.abandon(e.what());  // INCOMPLETE names what stopped it
    throw;
  }

  if (cc.trace) {
    dir.addFile("cars_rename.vcd");
    const auto vcd = std::filesystem::absolute(dir.finalDir() / "cars_rename.vcd");
    dir.writeFile("cars_rename.gtkw", gtkwSaveFile(renameWaveView(paramsFor(cfg), vcd.string(), cc.trace_start)));
  }
  dir.writeFile("stats.json", r.stats.dump(2) + "\n");
  dir.commit();

  if (!quiet) printSummary(r.flat, r, cc.rtl);
  std::cout << "results: " << dir.finalDir().string() << "\n";
  return 0;
}

}  // namespace

mech::Subcommand demoCommand() {
  mech::Subcommand c;
  c.name = "demo";
  c.help = "the CARS rename-unit demo: synthetic call/return traffic through the rename unit, RTL and C++ "
           "reference in lockstep";
  c.options = {{"--rtl", "co-simulate the Verilated RTL (default: mechanisms.cars.rtl)", false, 0, 0, ""},
               {"--no-rtl", "reference model only, no RTL", false, 0, 0, "--rtl"},
               {"--trace", "write the rename unit's VCD waveform and GTKWave save file", false, 0, 0, ""},
               {"-q,--quiet", "print only where the results are", false, 0, 0, ""}};
  c.run = runDemo;
  return c;
}

}  // namespace rfsim::cars
