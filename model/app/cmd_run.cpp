#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "app/commands.h"
#include "common/error.h"
#include "common/results_dir.h"
#include "config/config_io.h"
#include "mech/cars/cars_config.h"
#include "mech/cars/rename_demo.h"
#include "mech/cars/rename_waves.h"

namespace rfsim::app {

namespace {

void printSummary(const nlohmann::json& flat, const cars::DemoResult& r, bool rtl) {
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

}  // namespace

int runCommand(const RunOptions& o) {
  config::GpuConfig cfg = loadWithOverrides(o.config, {"cars"});
  cars::CarsConfig& cc = cars::carsConfig(cfg);
  if (o.rtl) cc.rtl = true;
  if (o.no_rtl) cc.rtl = false;
  if (o.trace) cc.trace = true;
  if (cc.trace && !cc.rtl)
    throw Error(fmt::format("{}: mechanisms.cars.trace: the waveform is of the RTL, which mechanisms.cars.rtl: false (or --no-rtl) "
                            "leaves out",
                            o.config.file));

  ResultsDir dir(o.output.out.empty() ? defaultOutDir("run", cfg.name) : o.output.out, o.output.overwrite);
  dir.writeFile("config.yaml", config::toYaml(cfg));

  cars::DemoOptions d;
  d.rtl = cc.rtl;
  d.source = o.config.file;
  if (cc.trace) {
    d.vcd = dir.path("cars_rename.vcd");
    d.trace_start = cc.trace_start;
    d.trace_cycles = cc.trace_cycles;
  }
  if (!o.quiet)
    std::cout << fmt::format("rfsim demo: {} ({}), CARS rename unit, {} warps, {} cycles, RTL {}\n", cfg.name,
                             o.config.file, cfg.sm.max_warps, cfg.demo.cycles, cc.rtl ? "on" : "off");

  stats::Group root(nullptr, "sim", "rename-unit co-simulation demo");
  const cars::DemoResult r = cars::runRenameDemo(cfg, d, root);

  if (cc.trace) {
    dir.addFile("cars_rename.vcd");
    const auto vcd = std::filesystem::absolute(dir.finalDir() / "cars_rename.vcd");
    dir.writeFile("cars_rename.gtkw",
                  gtkwSaveFile(cars::renameWaveView(cars::paramsFor(cfg), vcd.string(), cc.trace_start)));
  }
  dir.writeFile("stats.json", r.stats.dump(2) + "\n");
  dir.commit();

  if (!o.quiet) printSummary(r.flat, r, cc.rtl);
  std::cout << "results: " << dir.finalDir().string() << "\n";
  return 0;
}

}  // namespace rfsim::app
