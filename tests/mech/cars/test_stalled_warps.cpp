// The stalled-warp list and warp status check (mech/cars/stalled_warps.h,
// rtl/cars_stalled_warps.sv): directed cases on the reference, then the
// Verilated RTL in lockstep with it on random operations.
#include <catch2/catch.hpp>

#include <algorithm>
#include <deque>
#include <random>

#include "common/error.h"
#include "mech/cars/stalled_warps.h"

using namespace rfsim;
using namespace rfsim::cars;

namespace {
StalledOutputs op(StalledUnit& u, const StalledInputs& in) {
  StalledOutputs o;
  u.evaluate(in, o);
  u.tick();
  return o;
}
StalledInputs push(uint32_t w) {
  StalledInputs in;
  in.push = true;
  in.push_warp = w;
  return in;
}
StalledInputs check(uint64_t elig, bool fit) {
  StalledInputs in;
  in.check = true;
  in.elig = elig;
  in.fit = fit;
  return in;
}
}  // namespace

TEST_CASE("stalled warps: the oldest eligible warp is released, the list closes the gap, bad operations change nothing",
          "[cars][stalled]") {
  StalledRef u(64);
  for (uint32_t w : {9u, 4u, 17u, 2u}) CHECK_FALSE(op(u, push(w)).error);
  // Warp 4 may not be released (at a closed barrier): 17 is the oldest eligible.
  StalledOutputs o = op(u, check(~(1ull << 9 | 1ull << 4), true));
  CHECK(o.sel_valid);
  CHECK(o.sel_warp == 17);
  CHECK(o.release);
  CHECK(o.count == 4);
  // Entries now 9, 4, 2: the check without room selects but releases nothing.
  o = op(u, check(~0ull, false));
  CHECK(o.sel_warp == 9);
  CHECK_FALSE(o.release);
  StalledInputs dbg;
  for (uint32_t i = 0; i < 3; ++i) {
    dbg.dbg_idx = i;
    u.evaluate(dbg, o);
    CHECK(o.dbg_entry == (i == 0 ? 9u : i == 1 ? 4u : 2u));
  }
  CHECK(o.count == 3);
  // No eligible warp: nothing selected.
  o = op(u, check(1ull << 17, true));
  CHECK_FALSE(o.sel_valid);
  CHECK_FALSE(o.release);
  // A listed warp pushed again, a missing one removed, two operations at once.
  CHECK(op(u, push(4)).error);
  StalledInputs rm;
  rm.rm = true;
  rm.rm_warp = 33;
  CHECK(op(u, rm).error);
  StalledInputs two = push(5);
  two.rm = true;
  two.rm_warp = 9;
  CHECK(op(u, two).error);
  rm.rm_warp = 4;
  o = op(u, rm);
  CHECK_FALSE(o.error);
  CHECK(o.count == 3);
  u.evaluate(StalledInputs{}, o);
  CHECK(o.count == 2);
  // Full: 64 entries.
  StalledRef full(64);
  for (uint32_t w = 0; w < 64; ++w) REQUIRE_FALSE(op(full, push(w)).error);
  full.evaluate(StalledInputs{}, o);
  CHECK(o.count == 64);
  CHECK_THROWS_AS(StalledRef(48), Error);
}

TEST_CASE("stalled warps: the Verilated list in lockstep with the reference on 20000 random operations",
          "[cars][stalled][rtl]") {
  StalledWarpList list(64, true);
  std::mt19937_64 rng(7);
  std::deque<uint32_t> model;  // what the list must hold
  uint64_t releases = 0;
  for (int k = 0; k < 20000; ++k) {
    const uint32_t r = static_cast<uint32_t>(rng() % 10);
    if (r < 4 && model.size() < 64) {
      uint32_t w;
      do w = static_cast<uint32_t>(rng() % 64);
      while (std::find(model.begin(), model.end(), w) != model.end());
      list.push(w);
      model.push_back(w);
    } else if (r < 5 && !model.empty()) {
      const uint32_t w = model[rng() % model.size()];
      list.remove(w);
      model.erase(std::find(model.begin(), model.end(), w));
    } else {
      const uint64_t elig = rng() & rng();
      const bool fit = rng() % 4 != 0;
      const auto got = list.release(elig, [&](uint32_t) { return fit; });
      auto it = std::find_if(model.begin(), model.end(), [&](uint32_t w) { return elig >> w & 1u; });
      if (it != model.end() && fit) {
        REQUIRE(got);
        CHECK(*got == *it);
        model.erase(it);
        ++releases;
      } else {
        CHECK_FALSE(got);
      }
    }
    REQUIRE(std::equal(model.begin(), model.end(), list.entries().begin(), list.entries().end()));
  }
  CHECK(releases > 1000);
  CHECK(list.comparisons() >= list.clocks());
  CHECK_THROWS_WITH(list.remove(99), Catch::Contains("warp slot 99 beyond its 64 warps"));
  // A warp not listed: the unit raises its error, the list says what was refused.
  uint32_t absent = 0;
  while (std::find(model.begin(), model.end(), absent) != model.end()) ++absent;
  CHECK_THROWS_WITH(list.remove(absent), Catch::Contains("removing a warp refused"));
}
