// Two mechanisms on one SM: issue gates compose (each sees the instructions
// it flags and every one must agree), hooks only one mechanism can hold are
// refused at launch naming the mechanisms. CARS with the toy's counting
// gate on fib: CARS renames and keeps its frames, the toy counts, and the
// kernel's output is right.
#include <catch2/catch.hpp>

#include <string>

#include "common/error.h"
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
