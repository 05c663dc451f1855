#include <catch2/catch.hpp>

#include "stats/stats.h"

using namespace rfsim;

namespace {
struct UnitStats : stats::Group {
  explicit UnitStats(stats::Group* parent)
      : Group(parent, "unit", "a unit"),
        ADD_STAT(hits, stats::unit::Count, "hits"),
        ADD_STAT(misses, stats::unit::Count, "misses"),
        ADD_STAT(banks, stats::unit::Count, "reads per bank", 3, {"b0", "b1", "b2"}),
        ADD_STAT(hit_rate, stats::unit::Ratio, "hits / accesses",
                 [this] { return double(hits.get()) / double(hits.get() + misses.get()); }) {}
  stats::Scalar hits, misses;
  stats::Vector banks;
  stats::Formula hit_rate;
};
}  // namespace

TEST_CASE("statistics form a tree and print as JSON with unit and description", "[stats]") {
  stats::Group root(nullptr, "sim");
  UnitStats u(&root);
  ++u.hits;
  u.hits += 2;
  ++u.misses;
  u.banks[1] = 7;
  const auto j = stats::toJson(root);
  CHECK(j["sim"]["unit"]["hits"]["value"] == 3);
  CHECK(j["sim"]["unit"]["hits"]["unit"] == "count");
  CHECK(j["sim"]["unit"]["hits"]["desc"] == "hits");
  CHECK(j["sim"]["unit"]["banks"]["value"]["b1"] == 7);
  CHECK(j["sim"]["unit"]["hit_rate"]["value"].get<double>() == Approx(0.75));
  CHECK(j["sim"]["unit"]["_desc"] == "a unit");

  const auto flat = stats::toFlatJson(root);
  CHECK(flat["sim.unit.misses"] == 1);
  CHECK(u.banks.total() == 7);
  REQUIRE(root.find("unit.hits") == &u.hits);
  CHECK(root.find("unit.nothing") == nullptr);
}

TEST_CASE("undefined ratios print as null, and reset clears counters", "[stats]") {
  stats::Group root(nullptr, "sim");
  UnitStats u(&root);
  CHECK(stats::toJson(root)["sim"]["unit"]["hit_rate"]["value"].is_null());
  u.hits += 5;
  u.banks[0] = 1;
  u.misses.sampleMax(9);
  u.misses.sampleMax(4);
  CHECK(u.misses.get() == 9);
  root.resetAll();
  CHECK(u.hits.get() == 0);
  CHECK(u.banks[0] == 0);
}

TEST_CASE("a name used twice in one group is refused by the printer", "[stats]") {
  stats::Group root(nullptr, "sim");
  stats::Scalar a(&root, "x", stats::unit::Count, "first");
  stats::Scalar b(&root, "x", stats::unit::Count, "second");
  CHECK_THROWS_WITH(stats::toJson(root), Catch::Contains("'x' defined twice"));
}

TEST_CASE("a child group unregisters itself when destroyed", "[stats]") {
  stats::Group root(nullptr, "sim");
  { UnitStats u(&root); CHECK(root.children().size() == 1); }
  CHECK(root.children().empty());
  CHECK(stats::toJson(root)["sim"].size() == 0);
}
