// CARS' storage count (CARS section IV-C): the paper's items and the flops
// of rtl/cars_rename.sv, for the cost report.
#include <catch2/catch.hpp>

#include "common/error.h"
#include "mech/cars/storage_cost.h"

using Catch::Matchers::Contains;
using rfsim::Error;

TEST_CASE("paper storage of the 64-warp, 2048-register SM is 264 B", "[cost]") {
  const auto c = rfsim::cars::paperStorageCost(64, 2048);
  REQUIRE(c.items.size() == 3);
  CHECK(c.items[0].name == "stalled-warp list");
  CHECK(c.items[0].bits == 384);
  CHECK(c.items[0].bytes == 48.0);
  CHECK(c.items[1].name == "free-register counters");
  CHECK(c.items[1].bits == 320);
  CHECK(c.items[1].bytes == 40.0);
  CHECK(c.items[2].name == "RFP + RSP");
  CHECK(c.items[2].bits == 1408);
  CHECK(c.items[2].bytes == 176.0);
  CHECK(c.total_bits == 2112);
  CHECK(c.total_bytes == 264.0);
  for (const auto& i : c.items) {
    CHECK_FALSE(i.formula.empty());
    CHECK_FALSE(i.description.empty());
  }
}

TEST_CASE("paper storage for other warp and register counts", "[cost]") {
  SECTION("W = 32, R = 1024: 160 + 160 + 640 bits") {
    const auto c = rfsim::cars::paperStorageCost(32, 1024);
    CHECK(c.items[0].bits == 160);
    CHECK(c.items[1].bits == 160);
    CHECK(c.items[2].bits == 640);
    CHECK(c.total_bytes == 120.0);
  }
  SECTION("W = 4, R = 128: 8 + 20 + 56 bits, fractional bytes") {
    const auto c = rfsim::cars::paperStorageCost(4, 128);
    CHECK(c.items[0].bits == 8);
    CHECK(c.items[1].bits == 20);
    CHECK(c.items[1].bytes == 2.5);
    CHECK(c.items[2].bits == 56);
    CHECK(c.total_bits == 84);
    CHECK(c.total_bytes == 10.5);
  }
  SECTION("W = 64, R = 4096: 384 + 384 + 1536 bits") {
    const auto c = rfsim::cars::paperStorageCost(64, 4096);
    CHECK(c.total_bits == 2304);
    CHECK(c.total_bytes == 288.0);
  }
  SECTION("one warp owning one register costs nothing") {
    CHECK(rfsim::cars::paperStorageCost(1, 1).total_bits == 0);
  }
}

TEST_CASE("RTL storage: Base + RFP + RSP + free count + stack size per warp, F per SM", "[cost]") {
  const auto s = rfsim::cars::rtlStorage(64, 2048);
  CHECK(s.index_bits == 11);
  CHECK(s.free_bits == 11);
  CHECK(s.flops_per_warp == 55);
  CHECK(s.total_bits == 64 * 55 + 11);
  CHECK(s.total_bytes == (64 * 55 + 11) / 8.0);
  CHECK(rfsim::cars::rtlStorage(4, 128).total_bits == 4 * (5 * 7) + 7);
  CHECK(rfsim::cars::rtlStorage(32, 1024).total_bits == 32 * (5 * 10) + 10);
}

TEST_CASE("storage cost rejects illegal sizes", "[cost]") {
  using rfsim::cars::paperStorageCost;
  using rfsim::cars::rtlStorage;
  CHECK_THROWS_WITH(paperStorageCost(48, 2048), Contains("W") && Contains("48 is not a power of two"));
  CHECK_THROWS_WITH(paperStorageCost(64, 2000), Contains("2000 is not a power of two"));
  CHECK_THROWS_AS(paperStorageCost(0, 2048), Error);
  CHECK_THROWS_WITH(paperStorageCost(64, 32), Contains("cannot give each of 64 warps one"));
  CHECK_THROWS_WITH(rtlStorage(1, 128), Contains("NumWarps = 1 must be >= 2"));
  CHECK_THROWS_WITH(rtlStorage(64, 32), Contains("at least NumWarps"));
  CHECK_THROWS_AS(rtlStorage(64, 3000), Error);
}
