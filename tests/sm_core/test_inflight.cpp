// The latch state between the SM's stages: the instructions in flight
// (sm/core/inflight.h) and the resident warps' slots and block ids
// (sm/core/warp_slots.h).
#include <catch2/catch.hpp>

#include <memory>
#include <stdexcept>

#include "ptx/machine.h"
#include "sm/core/inflight.h"
#include "sm/core/warp_slots.h"

using namespace rfsim::sm;

TEST_CASE("in-flight table: tags are reused last freed first, the count follows", "[sm][stages]") {
  InflightTable t;
  const uint32_t a = t.alloc(), b = t.alloc(), c = t.alloc();
  CHECK(a == 0);
  CHECK(b == 1);
  CHECK(c == 2);
  CHECK(t.count() == 3);
  t[b].slot = 7;
  t.free(a);
  t.free(c);
  CHECK(t.count() == 1);
  CHECK(t.alloc() == c);  // the order the write-back stage frees them in decides the tags (and the stale fields)
  CHECK(t.alloc() == a);
  CHECK(t.alloc() == 3);
  CHECK(t[b].slot == 7);
  CHECK(t.count() == 4);
}

TEST_CASE("bank registers: predicates do not go through the banks, at most max", "[sm][stages]") {
  const uint16_t in[] = {3, static_cast<uint16_t>(rfsim::ptx::mach::kPredBase), 5, 9};
  uint16_t out[4];
  REQUIRE(bankRegs(in, 4, out, 4) == 3);
  CHECK(out[0] == 3);
  CHECK(out[1] == 5);
  CHECK(out[2] == 9);
  CHECK(bankRegs(in, 4, out, 2) == 2);
}

TEST_CASE("warp slots: a block id given back or retired is reused", "[sm][stages]") {
  WarpSlots w(4);
  CHECK(w.size() == 4);
  CHECK_FALSE(w[2].used);
  const int32_t a = w.reserveBlock();
  const int32_t b = w.reserveBlock();
  CHECK(a == 0);
  CHECK(b == 1);
  w.unreserveBlock(b);  // a launch the allocator refused
  CHECK(w.reserveBlock() == b);
  w.placeBlock(a, std::make_unique<ResidentBlock>());
  CHECK(w.blockLive(a));
  CHECK_FALSE(w.blockLive(b));
  w.retireBlock(a);
  CHECK_FALSE(w.blockLive(a));
  CHECK(w.reserveBlock() == a);
  CHECK_THROWS_AS(w.at(4), std::out_of_range);
}
