// rt::LaunchSampler (sim.sample launches): when a group of launches is
// stable, what a skipped launch is credited with, and whole workloads with
// it: outputs still checked, cycles near the full run's, and the
// mechanisms' decisions (RegDem's oracle, CARS' adaptive levels) the same
// as in the full run.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../mech/mech_test_util.h"
#include "gpu/gpu_stats.h"
#include "runtime/launch_sampler.h"

using namespace rfsim;

namespace {

config::SimConfig simWith(config::SampleMode m) {
  config::SimConfig s;
  s.sample = m;
  s.sample_window = 3;
  s.sample_tolerance = 0.02;
  return s;
}

}  // namespace

TEST_CASE("launch sampler: a group is stable once its window agrees", "[gpu][sample]") {
  rt::LaunchSampler s(simWith(config::SampleMode::Launches));
  REQUIRE(s.enabled());
  const std::string k = rt::LaunchSampler::key("k", {4, 1, 1}, {128, 1, 1}, 0, "base");
  CHECK(k != rt::LaunchSampler::key("k", {4, 1, 1}, {128, 1, 1}, 0, "cars"));
  CHECK(k != rt::LaunchSampler::key("k", {8, 1, 1}, {128, 1, 1}, 0, "base"));
  s.detailed(k, 5000, 900);  // the first launch: cold caches, slower
  s.detailed(k, 1000, 500);
  s.detailed(k, 1010, 500);
  CHECK_FALSE(s.stable(k));  // the window still holds the cold launch
  s.detailed(k, 990, 505);
  CHECK(s.stable(k));
  // The first skipped launch takes the window's mean; later ones scale by
  // their warp instructions over the first one's.
  CHECK(s.skipped(k, 2000) == 1000);
  CHECK(s.skipped(k, 2020) == 1010);
  CHECK(s.stable(k));
  CHECK(s.skipped(k, 3000) == 1500);  // unlike the others: the next launch runs in detail
  CHECK_FALSE(s.stable(k));
  s.detailed(k, 1002, 501);
  CHECK(s.stable(k));  // the window (1010, 990, 1002) agrees again
}

TEST_CASE("launch sampler: a stable group is checked after 4, 8, 16 ... skipped launches", "[gpu][sample]") {
  rt::LaunchSampler s(simWith(config::SampleMode::Launches));
  const std::string k = rt::LaunchSampler::key("k", {4, 1, 1}, {128, 1, 1}, 0, "base");
  for (int i = 0; i < 3; ++i) s.detailed(k, 1000, 500);
  REQUIRE(s.stable(k));
  for (int i = 0; i < 4; ++i) {
    CHECK(s.stable(k));
    s.skipped(k, 500);
  }
  // Before the check, a warming launch in detail, credited the window's
  // mean scaled by its warp instructions over the window's.
  CHECK_FALSE(s.stable(k));
  REQUIRE(s.warming(k));
  CHECK(s.warmed(k, 505) == 1010);
  CHECK_FALSE(s.warming(k));
  CHECK_FALSE(s.stable(k));  // the check: this launch runs in detail
  s.detailed(k, 1010, 500);  // like the window: stable, next check after 8
  for (int i = 0; i < 8; ++i) {
    CHECK(s.stable(k));
    CHECK_FALSE(s.warming(k));
    s.skipped(k, 500);
  }
  CHECK_FALSE(s.stable(k));
  REQUIRE(s.warming(k));
  s.warmed(k, 500);
  // The second check finds another regime (r2_3dconv's planes once the input
  // has left the L2): not stable until a new window of it agrees.
  s.detailed(k, 1400, 500);
  CHECK_FALSE(s.stable(k));
  s.detailed(k, 1405, 500);
  CHECK_FALSE(s.stable(k));
  s.detailed(k, 1398, 500);
  CHECK(s.stable(k));
  CHECK(s.skipped(k, 500) == 1401);  // the new window's mean
}

TEST_CASE("launch sampler: trials of a stable group are reused, nothing when off", "[gpu][sample]") {
  rt::LaunchSampler s(simWith(config::SampleMode::All));
  const std::string k = rt::LaunchSampler::key("k", {4, 1, 1}, {128, 1, 1}, 0, "v1");
  const std::string t = rt::LaunchSampler::key("k", {4, 1, 1}, {128, 1, 1}, 0, "regdem:");
  for (int i = 0; i < 3; ++i) {
    CHECK(s.trials(t) == nullptr);
    s.detailed(k, 1000, 500);
    s.measuredTrials(t, k, {{"v1", 1000}, {"v2", 1200 + uint64_t(i)}});
  }
  REQUIRE(s.trials(t) != nullptr);
  CHECK(s.trials(t)->at("v2") == 1202);  // the last detailed launch's
  for (int i = 0; i < 4; ++i) s.skipped(k, 500);
  REQUIRE(s.warming(k));
  CHECK(s.trials(t) != nullptr);  // the warming launch decides as the skipped ones
  s.warmed(k, 500);
  CHECK(s.trials(t) == nullptr);  // the check measures them again
  for (config::SampleMode m : {config::SampleMode::Off, config::SampleMode::Blocks}) {
    rt::LaunchSampler off(simWith(m));
    CHECK_FALSE(off.enabled());
    for (int i = 0; i < 4; ++i) off.detailed(k, 1000, 500);
    CHECK_FALSE(off.stable(k));
  }
}

namespace {

struct Launch {
  std::string variant;
  uint64_t cycles = 0;
  bool skipped = false;
  uint64_t lines_warmed = 0;  // gpu.sample.l2_lines_warmed
  nlohmann::json mechanisms;  // flat statistics of each mechanism's group
};

struct Result {
  bool passed = false;
  uint64_t cycles = 0;
  std::vector<Launch> launches;
};

// Workload `name` (small) on V100 under timing with `mech` ("none": the
// baseline) and sim.sample `sample`.
Result run(const std::string& name, const std::string& mech, const std::string& sample,
           std::vector<std::string> sets = {}) {
  mech::registerMechanisms();
  sets.push_back("sim.sample=" + sample);
  test::Run t = test::run(test::v100(mech, sets), name);
  Result r;
  r.passed = t.passed;
  for (const auto& rec : t.records) {
    Launch l;
    l.variant = rec.variant;
    l.cycles = rec.cycles;
    const gpu::SampleStats& smp = dynamic_cast<const gpu::GpuStats&>(*rec.gpu).sample;
    l.skipped = smp.launches_skipped.get() > 0 || smp.launches_warming.get() > 0;  // no statistics of its own
    l.lines_warmed = smp.l2_lines_warmed.get();
    for (const auto& g : rec.mechanisms) l.mechanisms[g->name()] = stats::toFlatJson(*g);
    r.cycles += rec.cycles;
    r.launches.push_back(std::move(l));
  }
  return r;
}

// Sampled against full: outputs checked, the same launches, detailed ones
// identical, skipped ones after the detailed ones of their group, and the
// whole run's cycles within `bound`.
void compare(const Result& full, const Result& smp, double bound) {
  REQUIRE(full.passed);
  CHECK(smp.passed);
  REQUIRE(smp.launches.size() == full.launches.size());
  size_t skipped = 0;
  for (size_t i = 0; i < full.launches.size(); ++i) {
    INFO("launch " << i);
    const Launch &f = full.launches[i], &s = smp.launches[i];
    CHECK(f.variant == s.variant);  // the mechanisms chose the same code
    CHECK_FALSE(f.skipped);
    if (s.skipped) {
      ++skipped;
      CHECK(s.mechanisms.empty());  // no statistics of a launch not simulated
      continue;
    }
    // Before the first skipped launch the runs are the same run; after it, a
    // detailed launch sees the L2 the skipped ones did not leave, so only the
    // decisions are compared then.
    if (skipped == 0) {
      CHECK(f.cycles == s.cycles);
      CHECK(f.mechanisms == s.mechanisms);
    }
  }
  CHECK(skipped > 0);
  const double err = double(smp.cycles) / double(full.cycles) - 1.0;
  INFO("full " << full.cycles << " sampled " << smp.cycles << " error " << err);
  CHECK(std::abs(err) <= bound);
}

}  // namespace

TEST_CASE("launch sampling: pta and cfd skip launches within 1 percent of the full run", "[gpu][sample]") {
  for (const char* w : {"pta", "cfd"}) {
    INFO(w);
    compare(run(w, "none", "off"), run(w, "none", "launches"), 0.01);
  }
}

TEST_CASE("launch sampling: RegDem's oracle and CARS' adaptive levels decide as in the full run", "[gpu][sample]") {
  SECTION("regdem oracle") {
    const std::vector<std::string> oracle{"mechanisms.regdem.select=oracle"};
    compare(run("pta", "regdem", "off", oracle), run("pta", "regdem", "launches", oracle), 0.01);
  }
  SECTION("cars adaptive") { compare(run("pta", "cars", "off"), run("pta", "cars", "launches"), 0.01); }
}

// sim.sample_warm_skipped: a skipped launch sends its global accesses to the
// L2's tags (gpu.sample.l2_lines_warmed counts them), within the same bound
// of the full run. On r2_3dconv's large input it is what lets the check
// after a skipped run see the full run's L2 (docs/sampling.md); here the
// warming launch before each check touches what the skipped ones did.
TEST_CASE("launch sampling: skipped launches warm the L2 with sim.sample_warm_skipped", "[gpu][sample]") {
  for (const char* w : {"pta", "cfd"}) {
    INFO(w);
    const Result cold = run(w, "none", "launches");
    const Result warm = run(w, "none", "launches", {"sim.sample_warm_skipped=true"});
    compare(run(w, "none", "off"), warm, 0.01);
    REQUIRE(warm.launches.size() == cold.launches.size());
    uint64_t warmed = 0;
    for (size_t i = 0; i < warm.launches.size(); ++i) {
      INFO("launch " << i);
      CHECK(cold.launches[i].lines_warmed == 0);
      if (!warm.launches[i].skipped) CHECK(warm.launches[i].lines_warmed == 0);
      warmed += warm.launches[i].lines_warmed;
    }
    CHECK(warmed > 0);
  }
}
