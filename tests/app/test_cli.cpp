// The rfsim program as a user meets it: exit status, one-line errors that name
// the file/key/tool, and results folders that are whole or visibly not.
#include <catch2/catch.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "run_command.h"

namespace fs = std::filesystem;

namespace {

using cli_test::Ran;

Ran rfsim(const std::string& args, const std::string& env = "") {
  return cli_test::sh(env + " " RFSIM_BINARY_DIR "/rfsim " + args);
}

fs::path scratch(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("rfsim-cli-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(p);
  fs::remove_all(p.string() + ".partial");
  return p;
}

}  // namespace

TEST_CASE("rfsim --help lists the subcommands", "[app]") {
  const Ran r = rfsim("--help");
  CHECK(r.status == 0);
  CHECK_THAT(r.output, Catch::Contains("run") && Catch::Contains("cost") && Catch::Contains("config"));
}

TEST_CASE("demo writes config, statistics and a manifest, and the config reloads", "[app]") {
  const fs::path out = scratch("run");
  const Ran r = rfsim("demo -q --set mechanisms.cars.demo.cycles=5000 --out " + out.string());
  REQUIRE(r.status == 0);
  CHECK_THAT(r.output, Catch::Contains("results: " + out.string()));
  CHECK(fs::exists(out / "manifest.json"));
  std::ifstream sj(out / "stats.json");
  const auto stats = nlohmann::json::parse(sj);
  CHECK(stats["sim"]["rename"]["cycles"]["value"] == 5000);
  CHECK(stats["sim"]["host"]["rtl_comparisons"]["value"] == 5000);
  // The resolved configuration is a loadable configuration with the override in it.
  const Ran again = rfsim("config --config " + (out / "config.yaml").string());
  CHECK(again.status == 0);
  CHECK_THAT(again.output, Catch::Contains("cycles: 5000"));
  fs::remove_all(out);
}

TEST_CASE("a missing or malformed configuration is a one-line error and leaves no results", "[app]") {
  const fs::path out = scratch("badcfg");
  Ran r = rfsim("run --workload saxpy --config configs/nope.yaml --out " + out.string());
  CHECK(r.status == 1);
  CHECK_THAT(r.output, Catch::Contains("configs/nope.yaml"));
  CHECK_FALSE(fs::exists(out));

  const fs::path bad = scratch("bad.yaml");
  std::ofstream(bad) << "name: x\nsm:\n  max_warpz: 32\n";
  r = rfsim("run --workload saxpy --config " + bad.string() + " --out " + out.string());
  CHECK(r.status == 1);
  CHECK_THAT(r.output, Catch::Contains(bad.string() + ":3:") && Catch::Contains("sm.max_warpz") &&
                           Catch::Contains("max_warps"));
  CHECK_FALSE(fs::exists(out));
  fs::remove(bad);

  r = rfsim("run --workload saxpy --set sm.max_warps=200 --out " + out.string());
  CHECK(r.status == 1);
  CHECK_THAT(r.output, Catch::Contains("sm.max_warps") && Catch::Contains("range"));
}

TEST_CASE("a run that fails midway leaves a .partial folder marked INCOMPLETE", "[app]") {
  const fs::path out = scratch("midway");
  // Allotments that do not fit the register file are refused when the demo is
  // built, after the results folder was started.
  const Ran r = rfsim("demo --set mechanisms.cars.demo.stack_regs=40 --set mechanisms.cars.demo.kernel_regs=17 --out " + out.string());
  CHECK(r.status == 1);
  CHECK_THAT(r.output, Catch::Contains("mechanisms.cars.demo: kernel_regs + stack_regs = 57") &&
                           Catch::Contains("exceeds the register file"));
  CHECK_FALSE(fs::exists(out));
  CHECK(fs::exists(out.string() + ".partial/INCOMPLETE"));
  CHECK_FALSE(fs::exists(out.string() + ".partial/manifest.json"));
  fs::remove_all(out.string() + ".partial");
}

TEST_CASE("existing results are not overwritten without --overwrite", "[app]") {
  const fs::path out = scratch("exists");
  REQUIRE(rfsim("demo -q --set mechanisms.cars.demo.cycles=100 --out " + out.string()).status == 0);
  const auto before = fs::last_write_time(out / "stats.json");
  const Ran r = rfsim("demo -q --set mechanisms.cars.demo.cycles=100 --out " + out.string());
  CHECK(r.status == 1);
  CHECK_THAT(r.output, Catch::Contains("exists"));
  CHECK(fs::last_write_time(out / "stats.json") == before);
  fs::remove_all(out);
}

TEST_CASE("run without --workload says what to give, and names the demo", "[app]") {
  const Ran r = rfsim("run");
  CHECK(r.status == 2);  // a usage error
  CHECK_THAT(r.output, Catch::Contains("--workload") && Catch::Contains("rfsim demo"));
}

TEST_CASE("run --mech: unknown names are refused with the known ones, the run's stats.json names them",
          "[app][mech]") {
  const fs::path out = scratch("mech");
  Ran r = rfsim("run -q --workload saxpy --timing --mech cars,lrtf --out " + out.string());
  CHECK(r.status == 1);
  CHECK_THAT(r.output, Catch::Contains("lrtf") && Catch::Contains("known: cars"));
  CHECK_FALSE(fs::exists(out));

  r = rfsim("run -q --workload saxpy --timing --rtl --out " + out.string());
  CHECK(r.status == 1);
  CHECK_THAT(r.output, Catch::Contains("--rtl") && Catch::Contains("--mech"));

  r = rfsim("run -q --workload saxpy,fib --timing --mech toy --out " + out.string());
  REQUIRE(r.status == 0);
  std::ifstream sj(out / "stats.json");
  const auto stats = nlohmann::json::parse(sj);
  CHECK(stats["schema"] == "rfsim-stats/2");
  CHECK(stats["run"]["mechanisms"] == nlohmann::json::array({"toy"}));
  const auto& saxpy = stats["workloads"]["saxpy"];
  CHECK(saxpy["passed"] == true);
  REQUIRE(saxpy["launches"].size() == 1);
  CHECK(saxpy["launches"][0]["variant"] == "toy");
  CHECK(saxpy["launches"][0]["gpu"]["cycles"]["value"].get<uint64_t>() > 0);
  CHECK(saxpy["launches"][0]["mechanisms"]["toy"]["gated_issues"]["value"].get<uint64_t>() > 0);
  CHECK(saxpy["total"]["gpu"]["cycles"]["value"] == saxpy["launches"][0]["gpu"]["cycles"]["value"]);
  CHECK(saxpy["summary"]["warp_instrs"]["value"].get<uint64_t>() > 0);
  // Energy per launch and in the total, with the mechanism's own structure.
  const auto& e = saxpy["total"]["energy"];
  CHECK(e["total"]["unit"] == "nJ");
  CHECK(e["total"]["value"].get<double>() > 0);
  CHECK(e["total"]["value"] == saxpy["launches"][0]["energy"]["total"]["value"]);
  CHECK(e["dynamic"]["value"]["toy.counter"].get<double>() ==
        Approx(1e-3 * saxpy["total"]["mechanisms"]["toy"]["gated_issues"]["value"].get<double>()));
  CHECK(e["events"]["value"]["regfile_read"].get<uint64_t>() > 0);
  CHECK(e["static"]["value"]["sm"].get<double>() > 0);
  fs::remove_all(out);
}

TEST_CASE("mechanisms lists each one with its status, backend --mech prints every variant", "[app][mech]") {
  Ran r = rfsim("mechanisms");
  CHECK(r.status == 0);
  CHECK_THAT(r.output, Catch::Contains("cars") && Catch::Contains("status:") && Catch::Contains("toy"));
  r = rfsim("backend --workload saxpy --mech toy");
  CHECK(r.status == 0);
  CHECK_THAT(r.output, Catch::Contains("== saxpy (") && Catch::Contains("== saxpy [toy]") &&
                           Catch::Contains("toy.swap_pairs"));
}

TEST_CASE("a missing EDA tool is named, with the way to install it", "[app]") {
  const fs::path out = scratch("notool");
  const Ran r = rfsim("cost --out " + out.string(), "PATH=/nonexistent");
  CHECK(r.status == 1);
  CHECK_THAT(r.output, Catch::Contains("'yosys' not found") && Catch::Contains("setup.sh"));
  CHECK_FALSE(fs::exists(out));
  fs::remove_all(out.string() + ".partial");
}

TEST_CASE("cost --no-synth reports the paper's 264 B without any tool", "[app][cost]") {
  const fs::path out = scratch("nosynth");
  const Ran r = rfsim("cost --no-synth --out " + out.string(), "PATH=/nonexistent");
  REQUIRE(r.status == 0);
  std::ifstream cj(out / "cost.json");
  const auto cost = nlohmann::json::parse(cj);
  CHECK(cost["storage"]["paper"]["total_bytes"] == 264.0);
  CHECK(cost["storage"]["paper"]["total_bits"] == 2112);
  CHECK(cost["synthesis"].is_null());
  fs::remove_all(out);
}

// Minutes on a loaded machine (the 64-warp rename unit, LTRF's 256-register
// tables): hidden from ctest, run by `build/tests/test_app "[long]"` and by
// scripts/cost.sh; the next test takes the same path on a 4-warp unit.
TEST_CASE("cost on the v100 configuration synthesizes the whole 64-warp unit", "[app][cost][synth][.][long]") {
  const fs::path out = scratch("v100cost");
  // The energy simulation is tested end to end on a small unit (tests/cost).
  const Ran r = rfsim("cost --config configs/v100.yaml --no-energy --out " + out.string());
  REQUIRE(r.status == 0);
  std::ifstream cj(out / "cost.json");
  const auto cost = nlohmann::json::parse(cj);
  CHECK(cost["storage"]["paper"]["total_bytes"] == 264.0);
  const auto& s = cost["synthesis"];
  CHECK(s["flops"] == 64 * (5 * 11) + 11);  // Base, RFP, RSP, free counter, stack size per warp; F
  CHECK(s["transistors_complete"] == true);
  CHECK(s["transistors"].get<double>() > 100000);
  CHECK(s["logic_levels"].get<int>() > 5);
  CHECK(s["area_um2"].get<double>() > 3531 * 96.0);  // at least the flops (DFFPOSX1 = 96 um2)
  CHECK(s["critical_path_ns"].get<double>() > 0.5);
  CHECK(s["critical_path_ns"].get<double>() < 10.0);
  CHECK(fs::exists(out / "synth" / "mapped.v"));
  CHECK(fs::exists(out / "cost.md"));
  CHECK(cost["energy"].is_null());
  fs::remove_all(out);
}

TEST_CASE("cost synthesizes a 4-warp rename unit from the command line", "[app][cost][synth]") {
  const fs::path out = scratch("smallcost");
  const Ran r = rfsim("cost -q --units-of cars --set sm.max_warps=4 --set sm.max_threads=128 --set sm.active_warps=4 "
                      "--set regfile.size_kb=16 --no-energy --out " +
                      out.string());
  REQUIRE(r.status == 0);
  std::ifstream cj(out / "cost.json");
  const auto cost = nlohmann::json::parse(cj);
  CHECK(cost["storage"]["paper"]["total_bytes"] == 10.5);
  const auto& s = cost["synthesis"];
  CHECK(s["flops"] == 4 * (5 * 7) + 7);  // Base, RFP, RSP, free counter, stack size per warp; F
  CHECK(s["transistors_complete"] == true);
  CHECK(s["area_um2"].get<double>() > 147 * 96.0);  // at least the flops (DFFPOSX1 = 96 um2)
  CHECK(s["critical_path_ns"].get<double>() > 0.5);
  CHECK(cost["synthesis_stalled_warps"]["flops"] == 4 * 2 + 3);
  CHECK_FALSE(cost.contains("synthesis_ltrf_wcb"));  // only cars' units
  CHECK(fs::exists(out / "synth" / "mapped.v"));
  CHECK(fs::exists(out / "cost.md"));
  CHECK(cost["energy"].is_null());
  fs::remove_all(out);
  CHECK(rfsim("cost --units-of nope --out " + out.string()).status == 2);
}

TEST_CASE("the mechanisms' subcommands and analysis options come from the registry", "[app][mech]") {
  Ran r = rfsim("--help");
  CHECK_THAT(r.output, Catch::Contains("demo"));
  r = rfsim("ptx --help");
  CHECK_THAT(r.output, Catch::Contains("--linearity") && Catch::Contains("--intervals"));
  r = rfsim("backend --help");
  CHECK_THAT(r.output, Catch::Contains("--intervals"));
  CHECK_THAT(r.output, !Catch::Contains("--linearity"));
  r = rfsim("ptx tests/ptx/data/kernels.ptx --intervals 8");
  CHECK(r.status == 0);
  CHECK_THAT(r.output, Catch::Contains("N = 8 registers per interval (PTX virtual registers"));
  r = rfsim("ptx tests/ptx/data/kernels.ptx --intervals 0");
  CHECK(r.status != 0);
  r = rfsim("demo --rtl --no-rtl");
  CHECK(r.status != 0);
  CHECK_THAT(r.output, Catch::Contains("excludes"));
}

TEST_CASE("backend --intervals N --json FILE writes the analysis per module and variant, as the text says",
          "[app][mech]") {
  const fs::path out = scratch("intervals") += ".json";
  const Ran text = rfsim("backend -c maxwell -w saxpy,fib --intervals 16");
  REQUIRE(text.status == 0);
  const Ran r = rfsim("backend -c maxwell -w saxpy,fib --intervals 16 --json " + out.string());
  REQUIRE(r.status == 0);
  CHECK(r.output == text.output);  // the text as without --json
  std::ifstream f(out);
  const nlohmann::json j = nlohmann::json::parse(f);
  CHECK(j.at("config") == "maxwell");
  CHECK(j.at("analyses").at("intervals") == 16);
  REQUIRE(j.at("modules").size() == 2);
  const nlohmann::json& m = j.at("modules").at(1);
  CHECK(m.at("label") == "fib");
  CHECK(m.at("variant") == "base");
  const nlohmann::json& iv = m.at("intervals");
  CHECK(iv.at("registers_per_interval") == 16);
  CHECK(iv.at("registers") == "machine");
  CHECK_FALSE(iv.at("functions").empty());
  const nlohmann::json &plain = iv.at("plain"), &renum = iv.at("renumbered");
  CHECK(plain.at("conflict_free").get<uint64_t>() <= plain.at("prefetches").get<uint64_t>());
  CHECK(renum.at("prefetches").get<uint64_t>() > 0);
  // The same counts as the text gives for fib, and nothing of the reports.
  const std::string line = "prefetches (intervals naming registers): " +
                           std::to_string(plain.at("prefetches").get<uint64_t>()) + ";";
  CHECK_THAT(text.output, Catch::Contains(line));
  CHECK_FALSE(j.contains("ptxas_summary"));
  fs::remove(out);
}

TEST_CASE("run: what a workload measures is a statistic in stats.json, with its unit", "[app]") {
  const fs::path out = scratch("measured");
  const Ran r = rfsim("run -q -w ubench_mem_latency,saxpy -o " + out.string());
  REQUIRE(r.status == 0);
  std::ifstream f(out / "stats.json");
  const nlohmann::json w = nlohmann::json::parse(f).at("workloads");
  for (const char* level : {"latency_l1", "latency_l2", "latency_dram"}) {
    const nlohmann::json& s = w.at("ubench_mem_latency").at("measured").at(level);
    CHECK(s.at("value").get<double>() > 0);
    CHECK(s.at("unit") == "count");  // the functional model: %clock64 counts warp instructions
    CHECK_FALSE(s.at("desc").get<std::string>().empty());
  }
  CHECK_FALSE(w.at("saxpy").contains("measured"));
  fs::remove_all(out);
}

TEST_CASE("repro: one command per paper, its script's options passed on, an unknown paper refused", "[app]") {
  Ran r = rfsim("repro nosuch");
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Catch::Contains("cars") && Catch::Contains("regdem") && Catch::Contains("ltrf") &&
                           Catch::Contains("r2d2"));
  for (const char* paper : {"cars", "regdem", "ltrf", "r2d2"}) {
    INFO(paper);
    r = rfsim(std::string("repro ") + paper + " -- --help");
    CHECK(r.status == 0);
    CHECK_THAT(r.output, Catch::Contains(std::string("scripts/") + paper + "_repro.sh"));
  }
}
