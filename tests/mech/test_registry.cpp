// The mechanism registry and selection (mech/mechanism.h): names checked
// against the registry, combinations refused with the reason, each enabled
// mechanism's configuration section validated like every other key.
#include <catch2/catch.hpp>

#include <filesystem>

#include <string>

#include "common/error.h"
#include "config/config_io.h"
#include "config/gpu_config.h"
#include "mech/cars/cars_config.h"
#include "mech/mechanism.h"
#include "mech/toy/toy_mechanism.h"

using namespace rfsim;
using Catch::Matchers::Contains;

namespace {

config::GpuConfig v100() { return config::loadConfig(std::string(RFSIM_SOURCE_DIR) + "/configs/v100.yaml"); }

}  // namespace

TEST_CASE("registry: the built-in mechanisms are registered with their sections", "[mech][registry]") {
  REQUIRE(mech::find("cars") != nullptr);
  REQUIRE(mech::find("toy") != nullptr);
  CHECK(mech::find("nope") == nullptr);
  CHECK(mech::find("cars")->section.name == "cars");
  CHECK_THAT(mech::knownNames(), Contains("cars") && Contains("toy"));
  // Registering again changes nothing (the entry points may all call it).
  const size_t n = mech::all().size();
  mech::registerMechanisms();
  CHECK(mech::all().size() == n);
}

TEST_CASE("registry: the baseline configurations enable no mechanism", "[mech][registry]") {
  for (const auto& e : std::filesystem::directory_iterator(std::string(RFSIM_SOURCE_DIR) + "/configs")) {
    if (e.path().extension() != ".yaml") continue;
    INFO(e.path().filename().string());
    const config::GpuConfig c = config::loadConfig(e.path().string());
    CHECK(c.mechanisms.enabledList().empty());
    CHECK(mech::instantiate(c).empty());
  }
}

TEST_CASE("registry: --mech selects, none clears, unknown names are refused with the known ones",
          "[mech][registry]") {
  config::GpuConfig c = v100();
  mech::select(c, "toy");
  CHECK(c.mechanisms.isEnabled("toy"));
  auto made = mech::instantiate(c);
  REQUIRE(made.size() == 1);
  CHECK(made[0]->name() == "toy");

  mech::select(c, "none");
  CHECK(c.mechanisms.enabledList().empty());

  CHECK_THROWS_WITH(mech::select(c, "toy,carz"), Contains("carz") && Contains("cars"));
  mech::select(c, "toy,toy");
  CHECK_THROWS_WITH(mech::instantiate(c), Contains("toy") && Contains("twice"));
  // The same checks hold when the names come from the file (mechanisms.enabled).
  c.mechanisms.enabled = "ltrf2";
  CHECK_THROWS_WITH(mech::instantiate(c), Contains("ltrf2"));
}

TEST_CASE("registry: a mechanism's keys are validated like every key", "[mech][registry][config]") {
  config::GpuConfig c = v100();
  config::applyOverride(c, "mechanisms.toy.blocks_per_sm=3");
  CHECK(c.mechanisms.get<toy::ToyConfig>("toy").blocks_per_sm == 3);
  CHECK_THROWS_WITH(config::applyOverride(c, "mechanisms.toy.blocks_per_sm=65"),
                    Contains("mechanisms.toy.blocks_per_sm"));
  CHECK_THROWS_WITH(config::applyOverride(c, "mechanisms.toy.blocks_per_sn=3"), Contains("blocks_per_sm"));
  CHECK_THROWS_WITH(config::applyOverride(c, "mechanisms.tyo.gate=false"), Contains("mechanisms"));
  config::applyOverride(c, "mechanisms.cars.rename_ports=2");
  CHECK(cars::carsConfig(c).rename_ports == 2);
  CHECK_THROWS_WITH(config::applyOverride(c, "mechanisms.cars.rename_ports=0"), Contains("mechanisms.cars.rename_ports"));
}

namespace {
struct Empty {
  template <class V> void visit(V&) {}
};
}  // namespace

TEST_CASE("registry: a combination that cannot work is refused, saying why", "[mech][registry]") {
  mech::MechanismInfo m;
  m.name = "exclusive";
  m.summary = "a test mechanism that cannot run beside toy";
  m.section.name = "exclusive";
  m.section.make = [] { return config::ErasedSection(std::make_unique<config::SectionOf<Empty>>()); };
  m.conflicts = {{"toy", "both choose the variant every launch runs"}};
  m.make = [](const config::GpuConfig&) -> std::unique_ptr<mech::Mechanism> { return nullptr; };
  mech::add(m);  // before the first configuration of this process is made

  config::GpuConfig c = v100();
  mech::select(c, "toy,exclusive");
  CHECK_THROWS_WITH(mech::instantiate(c), Contains("exclusive") && Contains("toy") &&
                                              Contains("both choose the variant"));
}
