// sim.parallel_sms with the mechanisms (gpu/gpu_top.h): their per-SM
// hooks run on the host thread that steps their SM, and the statistics are
// those of one thread.
#include <functional>

#include <catch2/catch.hpp>

#include "../mech/mech_test_util.h"

using namespace rfsim;
using namespace rfsim::test;

namespace {

// Runs `workload` with mechanism `mech` and the keys `sets` on 1, 2 and 4
// threads with parallel SMs; each run passes, `check`s, and gives every
// statistic (the mechanism's too) of the run on one thread.
void sameOnThreads(const std::string& workload, const std::string& mech, std::vector<std::string> sets,
                   const std::function<void(const Run&)>& check = {}) {
  sets.push_back("sim.parallel_sms=true");
  nlohmann::json one;
  for (uint32_t threads : {1u, 2u, 4u}) {
    INFO(threads << " threads");
    sets.push_back("sim.threads=" + std::to_string(threads));
    const Run r = run(v100(mech, sets), workload);
    sets.pop_back();
    CHECK(r.passed);
    if (check) check(r);
    const nlohmann::json j = launchesFlat(r, true);
    if (threads == 1) {
      one = j;
      continue;
    }
    INFO(differences(j, one));
    CHECK(j == one);
  }
}

}  // namespace

TEST_CASE("parallel SMs: each mechanism gives the same statistics on 1, 2 and 4 threads, RTL in the loop too",
          "[gpu][parallel][threads][mech]") {
  const std::vector<std::pair<std::string, std::vector<std::string>>> runs = {
      {"fib", {"cars", "mechanisms.cars.rtl=false"}},
      {"lt_hotspot", {"ltrf", "mechanisms.ltrf.rtl=false", "sm.scheduler=two_level"}},
      {"r2_atax", {"r2d2", "mechanisms.r2d2.rtl=false"}},
      // With its RTL in the loop a launch is stepped on one thread (Verilator's
      // eval thread): the same statistics by construction, and the RTL's own.
      {"fib", {"cars", "mechanisms.cars.rtl=true"}},
      {"lt_hotspot", {"ltrf", "mechanisms.ltrf.rtl=true", "sm.scheduler=two_level"}},
      {"cfd_flux", {"regdem"}},
      {"saxpy", {"toy"}},
  };
  for (const auto& [workload, mech] : runs) {
    INFO(workload << " with " << mech[0]);
    std::vector<std::string> sets(mech.begin() + 1, mech.end());
    sets.push_back("gpu.num_sms=8");
    sameOnThreads(workload, mech[0], sets);
  }
}

// CARS' adaptive allocation (CARS III-B) is the one piece of mechanism state
// shared by all SMs: with parallel SMs, each SM's finished blocks' samples
// wait until the quantum's end and are recorded in SM order. raytrace with a
// 64 KB register file on 4 SMs is register-starved enough that the state
// machine samples and moves between levels.
TEST_CASE("parallel SMs: CARS' adaptive samples, deferred to the quantum's end, steer the same on 1, 2 and 4 threads",
          "[gpu][parallel][threads][mech][cars]") {
  sameOnThreads("raytrace", "cars",
                {"mechanisms.cars.rtl=false", "mechanisms.cars.allocation=adaptive", "compiler.callee_saved=contiguous",
                 "gpu.num_sms=4", "regfile.size_kb=64"},
                [](const Run& r) {
                  CHECK(total(r, "cars.adaptive", true) > 0);
                  CHECK(total(r, "cars.epochs", true) > 0);       // finished blocks sampled
                  CHECK(total(r, "cars.level_steps", true) > 0);  // and the levels moved
                });
}
