// Two mechanisms on one SM: issue gates compose (each sees the instructions
// it flags and every one must agree), hooks only one mechanism can hold are
// refused at launch naming the mechanisms. CARS with the toy's counting
// gate on fib: CARS renames and keeps its frames, the toy counts, and the
// kernel's output is right.
#include <catch2/catch.hpp>

#include <string>

#include "common/error.h"
#include "ptx/ir.h"
#include "mech_test_util.h"

using namespace rfsim;
using namespace rfsim::test;

namespace {

uint64_t controlFlow(const rt::LaunchStats& t) {
  uint64_t n = 0;
  for (ptx::Op op : {ptx::Op::Bra, ptx::Op::Call, ptx::Op::Ret, ptx::Op::Exit})
    n += t.warp_instrs_by_op[static_cast<size_t>(op)];
  return n;
}

uint64_t mechTotal(const Run& r, const std::string& mech, const std::string& key) {
  uint64_t n = 0;
  for (const auto& rec : r.records)
    for (const auto& g : rec.mechanisms)
      if (g->name() == mech) {
        const nlohmann::json j = flatOf(*g);
        REQUIRE(j.contains(key));
        n += j[key].get<uint64_t>();
      }
  return n;
}

}  // namespace

TEST_CASE("composition: CARS and the toy's gate run together on fib", "[mech][composition][timing]") {
  const Run cars = run(v100("cars", {"gpu.num_sms=4"}), "fib");
  const Run both = run(v100("cars,toy", {"gpu.num_sms=4", "mechanisms.toy.rename_pass=false"}), "fib");
  REQUIRE(cars.passed);
  CHECK(both.passed);
  INFO(both.detail);
  // CARS did its work: every call renamed into a frame, as alone.
  CHECK(mechTotal(both, "cars", "cars.call_ops") == mechTotal(cars, "cars", "cars.call_ops"));
  CHECK(mechTotal(both, "cars", "cars.call_ops") > 0);
  // The toy's gate saw every control-flow instruction issue, CARS' flagged ones included.
  CHECK(mechTotal(both, "toy", "toy.gated_issues") == controlFlow(both.totals));
  CHECK(mechTotal(both, "toy", "toy.gate_checks") >= mechTotal(both, "toy", "toy.gated_issues"));
}

TEST_CASE("composition: two mechanisms that need the one register translator are refused naming both",
          "[mech][composition][timing]") {
  CHECK_THROWS_WITH(run(v100("cars,toy", {"gpu.num_sms=1", "mechanisms.toy.rename_pass=false",
                                          "mechanisms.toy.park_rows=true"}),
                        "saxpy"),
                    Catch::Contains("mechanisms cars,toy cannot be combined") &&
                        Catch::Contains("register translator is already installed"));
}
