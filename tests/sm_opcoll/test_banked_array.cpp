// The banked array a register-file level times its own banks with
// (sm/opcoll/banked_array.h): ports per bank and cycle, latency, conflicts.
#include <catch2/catch.hpp>

#include <map>

#include "common/error.h"
#include "sm/opcoll/banked_array.h"

using namespace rfsim;
using rfsim::sm::BankedArray;

TEST_CASE("banked array: one port per bank serialises same-bank accesses, other banks do not wait", "[opcoll][banked]") {
  BankedArray a(4, 1, 3);
  CHECK(a.access(0, 100) == 103);  // booked in cycle 100, value at 103
  CHECK(a.access(0, 100) == 104);  // bank 0 busy in 100: cycle 101
  CHECK(a.access(0, 100) == 105);
  CHECK(a.access(1, 100) == 103);  // bank 1 is free
  CHECK(a.access(0, 102) == 106);  // 102 is taken, 103 free
  CHECK(a.accesses() == 5);
  CHECK(a.bankAccesses(0) == 4);
  CHECK(a.conflicts() == 3);
  CHECK(a.conflictCycles() == 1 + 2 + 1);
  CHECK(a.firstFree(0, 100) == 104);
  CHECK(a.accesses() == 5);  // firstFree books nothing
}

TEST_CASE("banked array: ports per bank, old bookings free their ring slots", "[opcoll][banked]") {
  BankedArray a(2, 2, 1, 16);
  CHECK(a.access(1, 5) == 6);
  CHECK(a.access(1, 5) == 6);
  CHECK(a.access(1, 5) == 7);
  // 16 cycles later the ring slots of cycles 5 and 6 hold stale bookings.
  CHECK(a.access(1, 21) == 22);
  CHECK(a.access(1, 21) == 22);
  CHECK(a.access(1, 22) == 23);
}

TEST_CASE("banked array: bad shapes and bookings beyond the horizon are errors", "[opcoll][banked]") {
  CHECK_THROWS_AS(BankedArray(0, 1, 1), Error);
  CHECK_THROWS_AS(BankedArray(1, 0, 1), Error);
  CHECK_THROWS_AS(BankedArray(1, 1, 0), Error);
  CHECK_THROWS_AS(BankedArray(1, 65536, 1), Error);  // a slot counts at most 65 535 bookings
  CHECK_NOTHROW(BankedArray(1, 65535, 1));
  BankedArray a(2, 1, 1, 8);
  CHECK_THROWS_AS(a.access(2, 0), Error);
  for (int i = 0; i < 8; ++i) a.access(0, 0);  // cycles 0..7 booked
  CHECK_THROWS_AS(a.access(0, 0), Error);       // no free port in the horizon
}

TEST_CASE("banked array: a request further behind the latest booking than the ring holds is an error",
          "[opcoll][banked]") {
  // A ring of 8 cycles: a booking at cycle 100 reuses the slot of cycle 92.
  BankedArray a(2, 1, 1, 8);
  CHECK(a.access(0, 92) == 93);
  CHECK(a.access(0, 100) == 101);  // the slot of cycle 92 now holds cycle 100
  // Cycle 93 is 8 cycles behind the latest booking, what the ring holds.
  CHECK(a.firstFree(0, 93) == 93);
  CHECK(a.access(0, 100) == 102);
  // Cycle 92's booking is gone from the ring: a request there, 9 cycles
  // behind, cannot be answered and is an error (not a silent double booking).
  CHECK_THROWS_WITH(a.firstFree(0, 92), Catch::Contains("more than the ring's 8 cycles behind"));
  CHECK_THROWS_AS(a.access(0, 92), Error);
  // The other bank's bookings are its own.
  CHECK(a.access(1, 0) == 1);
}

TEST_CASE("banked array: bookings ahead and behind the latest agree with a count per cycle", "[opcoll][banked]") {
  // Accesses whose earliest cycle jumps ahead of every booking (taken
  // without a look at the ring) and falls back behind it (looked up).
  BankedArray a(3, 2, 2, 64);
  std::map<std::pair<uint32_t, uint64_t>, uint32_t> booked;  // (bank, cycle) -> ports taken
  uint32_t seed = 7;
  auto rnd = [&](uint32_t m) {
    seed = seed * 1103515245u + 12345u;
    return (seed >> 16) % m;
  };
  uint64_t now = 0;
  for (int i = 0; i < 5000; ++i) {
    now += rnd(3);
    const uint32_t bank = rnd(3);
    const uint64_t earliest = now + rnd(6);
    uint64_t c = earliest;
    while (booked[{bank, c}] == 2) ++c;
    ++booked[{bank, c}];
    REQUIRE(a.firstFree(bank, earliest) == c);
    REQUIRE(a.access(bank, earliest) == c + 2);
  }
}
