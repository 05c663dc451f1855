// Two mechanisms on one SM: issue gates compose (each sees the instructions
// it flags and every one must agree), hooks only one mechanism can hold are
// refused at launch naming the mechanisms. CARS with the toy's counting
// gate on fib: CARS renames and keeps its frames, the toy counts, and the
// kernel's output is right. Mechanisms that compose (mechanism.h,
// composes_after): R2D2 with CARS and with LTRF, each on its code variant
// combined with R2D2's, with a wrong R2D2 row still caught by the check.
#include <catch2/catch.hpp>

#include <string>

#include "common/error.h"
#include "config/config_io.h"
#include "mech_test_util.h"

using namespace rfsim;
using namespace rfsim::test;

TEST_CASE("composition: CARS and the toy's gate run together on fib", "[mech][composition][timing]") {
  const Run cars = run(v100("cars", {"gpu.num_sms=4"}), "fib");
  const Run both = run(v100("cars,toy", {"gpu.num_sms=4", "mechanisms.toy.rename_pass=false"}), "fib");
  REQUIRE(cars.passed);
  CHECK(both.passed);
  INFO(both.detail);
  // CARS did its work: every call renamed into a frame, as alone.
  CHECK(total(both, "cars.call_ops", true, "cars") == total(cars, "cars.call_ops", true, "cars"));
  CHECK(total(both, "cars.call_ops", true, "cars") > 0);
  // The toy's gate saw every control-flow instruction issue, CARS' flagged ones included.
  CHECK(total(both, "toy.gated_issues", true, "toy") == controlFlow(both.totals));
  CHECK(total(both, "toy.gate_checks", true, "toy") >= total(both, "toy.gated_issues", true, "toy"));
}

TEST_CASE("composition: two mechanisms that need the one register translator are refused naming both",
          "[mech][composition][timing]") {
  CHECK_THROWS_WITH(run(v100("cars,toy", {"gpu.num_sms=1", "mechanisms.toy.rename_pass=false",
                                          "mechanisms.toy.park_rows=true"}),
                        "saxpy"),
                    Catch::Contains("mechanisms cars,toy cannot be combined") &&
                        Catch::Contains("register translator is already installed"));
}

// R2D2 and CARS (mechanism.h, composes_after): R2D2's classes keep rows at
// the top of the register file, CARS renames the general registers below
// them, each through its own unit; the code is the variant "r2d2+cars"
// (R2D2's pass, then CARS').
TEST_CASE("composition: R2D2 and CARS run one kernel together, in either order given", "[mech][composition][timing]") {
  const std::vector<std::string> sets = {"gpu.num_sms=4"};
  for (const char* order : {"cars,r2d2", "r2d2,cars"}) {
    const config::GpuConfig cfg = v100(order, sets);
    const auto mechs = mech::instantiate(cfg);
    REQUIRE(mechs.size() == 2);
    CHECK(mechs[0]->name() == "r2d2");  // R2D2 chooses and attaches first, CARS over it
    CHECK(mechs[1]->name() == "cars");
  }
  const Run cars = run(v100("cars", sets), "fib");
  const Run both = run(v100("cars,r2d2", sets), "fib");
  REQUIRE(cars.passed);
  CHECK(both.passed);
  INFO(both.detail);
  REQUIRE(!both.records.empty());
  for (const auto& rec : both.records) CHECK(rec.variant == "r2d2+cars");
  // Each did its work: R2D2's linear operands read from its rows, CARS'
  // calls renamed into frames (as many as alone: R2D2 changes no call).
  CHECK(total(both, "r2d2.linear_reads", true, "r2d2") > 0);
  CHECK(total(both, "r2d2.tr_blocks", true, "r2d2") > 0);
  CHECK(total(both, "cars.call_ops", true, "cars") == total(cars, "cars.call_ops", true, "cars"));
  CHECK(total(both, "cars.call_ops", true, "cars") > 0);
  CHECK(total(both, "r2d2.removed_static", true, "r2d2") > 0);  // the linear code is gone

  // A kernel without calls: R2D2's register ID calculation, in lockstep
  // with its RTL, beside CARS' rename unit in lockstep with its own.
  const Run gemm = run(v100("r2d2,cars", {"gpu.num_sms=4", "mechanisms.r2d2.rtl=true", "mechanisms.cars.rtl=true"}),
                       "r2_gemm");
  CHECK(gemm.passed);
  CHECK(total(gemm, "r2d2.rtl_lookups", true, "r2d2") > 0);
  CHECK(total(gemm, "cars.evaluations", true, "cars") > 0);
}

TEST_CASE("composition: under CARS, R2D2's values still come from its own rows", "[mech][composition][timing]") {
  // Every warp reads its block's first warp's thread-index part: a wrong
  // row, which the check catches.
  const Run bad = run(v100("r2d2,cars", {"gpu.num_sms=2", "mechanisms.r2d2.fault=tr_row"}), "r2_gemm");
  CHECK_FALSE(bad.passed);
}

namespace {
config::GpuConfig maxwellWith(const std::string& mech, const std::vector<std::string>& sets) {
  config::GpuConfig c = config::loadConfig(std::string(RFSIM_SOURCE_DIR) + "/configs/maxwell.yaml");
  mech::select(c, mech);
  for (const auto& s : sets) config::applyOverride(c, s);
  config::validate(c, "test");
  return c;
}
}  // namespace

// R2D2 and LTRF: R2D2's classes in the main register file's top rows, read
// from its banks and never cached; LTRF caches the general registers, kept
// at the baseline's rows below them. A warp that starts at one of R2D2's
// blocks resumes inside an interval and fetches its working set there.
TEST_CASE("composition: R2D2 and LTRF run one kernel together", "[mech][composition][timing]") {
  const std::vector<std::string> sets = {"gpu.num_sms=2", "mechanisms.ltrf.rtl=true", "mechanisms.r2d2.rtl=true"};
  const config::GpuConfig cfg = maxwellWith("ltrf,r2d2", sets);
  const auto mechs = mech::instantiate(cfg);
  REQUIRE(mechs.size() == 2);
  CHECK(mechs[0]->name() == "r2d2");
  const Run both = run(cfg, "r2_srad");
  CHECK(both.passed);
  INFO(both.detail);
  for (const auto& rec : both.records) CHECK(rec.variant == "r2d2+ltrf");
  CHECK(total(both, "r2d2.linear_reads", true, "r2d2") > 0);
  CHECK(total(both, "r2d2.rtl_lookups", true, "r2d2") > 0);
  CHECK(total(both, "ltrf.rtl_lookups", true, "ltrf") > 0);
  CHECK(total(both, "ltrf.prefetch_instrs", true, "ltrf") > 0);
  CHECK(total(both, "ltrf.uncached_accesses", true, "ltrf") == 0);
  // Warps that start at R2D2's blocks resume inside an interval.
  CHECK(total(both, "ltrf.path_refetches", true, "ltrf") > 0);
  // R2D2's parts come from the MRF: more of its reads than LTRF's alone.
  CHECK(total(both, "ltrf.operand_mrf_reads", true, "ltrf") >= total(both, "r2d2.linear_reads", true, "r2d2"));
  // A wrong thread-index row still breaks the output under LTRF's cache.
  const Run bad = run(maxwellWith("ltrf,r2d2", {"gpu.num_sms=2", "mechanisms.r2d2.fault=tr_row"}), "r2_srad");
  CHECK_FALSE(bad.passed);
}
