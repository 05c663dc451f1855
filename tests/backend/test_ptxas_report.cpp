// The committed ptxas -v reports of the workloads parse into the figures
// ptxas printed.
#include <catch2/catch.hpp>

#include <filesystem>

#include "backend/ptxas_report.h"
#include "common/error.h"

using namespace rfsim;
using namespace rfsim::backend;

namespace {
PtxasReport workload(const std::string& name) {
  return readPtxasReport(std::string(RFSIM_SOURCE_DIR) + "/workloads/" + name + "/" + name + ".ptxas.txt");
}
}  // namespace

TEST_CASE("deep_calls: callee-saved spills in every non-leaf level, 25 registers in the kernel", "[backend][ptxas]") {
  const PtxasReport r = workload("deep_calls");
  CHECK_THAT(r.command, Catch::Contains("-rdc=true"));
  const PtxasFunction* k = r.find("deep_calls");
  REQUIRE(k);
  CHECK(k->entry);
  CHECK(k->registers == 25);
  const PtxasFunction* l7 = r.find("_Z5levelILi7EEjjjPKj");
  REQUIRE(l7);
  CHECK_FALSE(l7->entry);
  CHECK(l7->registers == -1);  // ptxas prints no register count for -rdc device functions
  CHECK(l7->stack_frame == 72);
  CHECK(l7->spill_stores == 68);
  CHECK(l7->spill_loads == 68);
  CHECK(r.find("_Z5levelILi8EEjjjPKj")->stack_frame == 0);
}

TEST_CASE("regpressure: 212 registers, and 128 with spills under __launch_bounds__", "[backend][ptxas]") {
  const PtxasReport r = workload("regpressure");
  const PtxasFunction* a = r.find("sgemm_regtile");
  const PtxasFunction* b = r.find("sgemm_regtile_2blocks");
  REQUIRE(a);
  REQUIRE(b);
  CHECK(a->registers == 212);
  CHECK(a->spill_stores == 0);
  CHECK(a->shared == 12288);
  CHECK(a->barriers == 1);
  CHECK(b->registers == 128);
  CHECK(b->stack_frame == 704);
  CHECK(b->spill_stores == 2032);
  CHECK(b->spill_loads == 1800);
  CHECK(b->cumulative_stack == 704);
}

TEST_CASE("every workload's report names its kernels with a register count", "[backend][ptxas]") {
  size_t entries = 0;
  for (const auto& dir : std::filesystem::directory_iterator(std::string(RFSIM_SOURCE_DIR) + "/workloads")) {
    const auto name = dir.path().filename().string();
    const auto file = dir.path() / (name + ".ptxas.txt");
    if (!std::filesystem::exists(file)) continue;
    const PtxasReport r = readPtxasReport(file);
    for (const auto& f : r.functions) {
      if (!f.entry) continue;
      ++entries;
      INFO(name << ": " << f.name);
      CHECK(f.registers > 0);
      CHECK(f.registers <= 255);
    }
  }
  CHECK(entries >= 25);
}

TEST_CASE("a frame line before any function is an error naming file and line", "[backend][ptxas]") {
  CHECK_THROWS_WITH(parsePtxasReport("ptxas info    : 0 bytes gmem\n    8 bytes stack frame, 0 bytes spill stores, 0 "
                                     "bytes spill loads\n",
                                     "x.ptxas.txt"),
                    Catch::Contains("x.ptxas.txt:2:"));
  CHECK_THROWS_WITH(readPtxasReport("/nonexistent.ptxas.txt"), Catch::Contains("cannot open"));
}
