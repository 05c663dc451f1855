// The adaptive allocation's state machine (CARS Fig. 5) on scripted
// sequences of finished blocks, and the variable-size register regions with
// the stalled-warp list.
#include <catch2/catch.hpp>

#include <vector>

#include "common/error.h"
#include "mech/cars/cars_adaptive.h"
#include "mech/cars/cars_regions.h"

using namespace rfsim;
using namespace rfsim::cars;

TEST_CASE("cars adaptive: levels double from low and end at high", "[cars][adaptive]") {
  CHECK(adaptiveLevels(30, 56) == std::vector<uint32_t>{30, 56});
  CHECK(adaptiveLevels(20, 100) == std::vector<uint32_t>{20, 40, 80, 100});
  CHECK(adaptiveLevels(64, 64) == std::vector<uint32_t>{64});
  CHECK(adaptiveLevels(70, 64) == std::vector<uint32_t>{70});  // the leftover above high: one level
}

TEST_CASE("cars adaptive: half the SMs start low and half high and the worse side steps toward the better",
          "[cars][adaptive]") {
  AdaptiveAllocation a({20, 40, 80, 160}, 4, 0.02);
  CHECK(a.levelOf(0) == 0);
  CHECK(a.levelOf(1) == 3);
  CHECK(a.levelOf(2) == 0);
  CHECK(a.levelOf(3) == 3);
  CHECK_FALSE(a.remembered());
  // Low finished first: until a high block finishes too, nobody moves.
  CHECK(a.record(0, 0, 1.0) == 0);
  // High is better: the high SM stays, the next low block steps its SM up.
  CHECK(a.record(1, 3, 2.0) == 3);
  CHECK(a.record(2, 0, 1.1) == 1);  // low's mean 1.05 < 2.0: one step up, to 2 x low
  CHECK(a.steps() == 1);
  // 2 x low turns out best: the high SMs step down toward it, it stays.
  CHECK(a.record(2, 1, 3.0) == 1);
  CHECK(a.record(3, 3, 2.0) == 2);  // high's mean 2.0 < 3.0: down one
  CHECK(a.record(3, 2, 2.5) == 1);  // 4 x low (2.5) is worse than 2 x low (3.0): down again
  CHECK(a.best() == 1u);
  CHECK(a.levels()[1].samples == 1);
  CHECK(a.levels()[3].mean == Approx(2.0));
  CHECK(a.samples() == 6);
}

TEST_CASE("cars adaptive: low better sends the high SMs down and the hysteresis holds an SM on a near tie",
          "[cars][adaptive]") {
  AdaptiveAllocation a({30, 60}, 2, 0.10);
  a.record(0, 0, 2.0);
  CHECK(a.record(1, 1, 1.0) == 0);  // high worse: down to low
  AdaptiveAllocation b({30, 60}, 2, 0.10);
  b.record(0, 0, 1.05);
  CHECK(b.record(1, 1, 1.0) == 1);  // 5 % better is within the 10 % hysteresis: stays
}

// CARS III-B: a sample per finished thread block of the level it ran at,
// and "the average performance of all executed flavors is remembered" for
// the next launch of the same kernel, which starts at the best and moves
// against those averages.
TEST_CASE("cars adaptive: every finished block samples its own level, and the averages carry to the next launch",
          "[cars][adaptive]") {
  const std::vector<uint32_t> levels{20, 40, 80};
  AdaptiveAllocation first(levels, 2, 0.02);
  REQUIRE(first.levelOf(0) == 0);
  REQUIRE(first.levelOf(1) == 2);
  // SM 0 (low) and SM 1 (high) each finish one block: high is better, and
  // the state machine starts at once (one block of each, not a turnover).
  CHECK(first.record(1, 2, 4.0) == 2);
  CHECK(first.record(0, 0, 2.0) == 1);  // SM 0 steps up to 2 x low
  // A block SM 0 had launched at low before the step finishes now: it is a
  // sample of low, not of SM 0's current level.
  CHECK(first.record(0, 0, 1.0) == 1);
  CHECK(first.levels()[0].samples == 2);
  CHECK(first.levels()[0].mean == Approx(1.5));
  CHECK(first.levels()[1].samples == 0);
  // 2 x low's first block: 3.0, still below high's 4.0: up again.
  CHECK(first.record(0, 1, 3.0) == 2);
  CHECK(first.best() == 2u);
  const AdaptiveAllocation::History h = first.history({});
  REQUIRE(h.size() == 3);
  CHECK(h.at(80).mean == Approx(4.0));

  // The second launch: every SM starts at the best (high), with every
  // level's average from the first launch.
  AdaptiveAllocation second(levels, 2, 0.02, &h);
  CHECK(second.remembered());
  CHECK(second.levelOf(0) == 2);
  CHECK(second.levelOf(1) == 2);
  CHECK(second.levels()[1].mean == Approx(3.0));
  // High does worse this time: its average falls to (4 + 1) / 2 = 2.5,
  // below 2 x low's remembered 3.0, and SM 1 moves down at once.
  CHECK(second.record(1, 2, 1.0) == 1);
  CHECK(second.levels()[2].samples == 2);
  CHECK(second.levels()[2].mean == Approx(2.5));
  CHECK(second.best() == 1u);
  // The history of both launches: high's two blocks, low's two.
  const AdaptiveAllocation::History h2 = second.history(h);
  CHECK(h2.at(80).samples == 2);
  CHECK(h2.at(20).samples == 2);
  // A level the later launch lacks (the leftover moved the levels) is kept.
  AdaptiveAllocation third({24, 80}, 2, 0.02, &h2);
  CHECK(third.levelOf(0) == 1);  // 24 was never measured: high is the best known
  CHECK(third.history(h2).count(20) == 1);
}

TEST_CASE("cars regions: sizes change between blocks and freed runs merge while stalled warps wait their turn",
          "[cars][regions]") {
  // 100 rows, frame 20: stacks of 10 give regions of 30.
  CarsRegions r(100, 20, 10, 8, false);
  uint32_t base = 0;
  REQUIRE(r.allocate(0, 0, 0, 0, base));
  CHECK(base == 0);
  REQUIRE(r.allocate(0, 1, 1, 0, base));
  CHECK(base == 30);
  REQUIRE(r.allocate(0, 2, 2, 0, base));
  CHECK(base == 60);
  CHECK(r.stackRegs(2) == 10);
  // The next block's level: stacks of 20 (regions of 40); 10 rows left.
  r.setStack(20);
  REQUIRE(r.allocate(1, 3, 0, 0, base));
  CHECK(base == RegionAllocator::kStalled);
  CHECK(r.stackRegs(3) == 20);
  // Warp 1 exits: 30 free at 30 and 10 at 90 do not hold 40.
  r.release(1);
  uint32_t w = 0;
  bool restore = false;
  CHECK_FALSE(r.grantStalled(-1, w, base, restore));
  // Warp 2 exits: 30..100 merge into one run of 70.
  r.release(2);
  REQUIRE(r.grantStalled(-1, w, base, restore));
  CHECK(w == 3);
  CHECK(base == 30);
  CHECK_FALSE(restore);
  CHECK(r.stalled_warps == 1);
  CHECK(r.max_resident == 3);
  // A region larger than the file is refused.
  CHECK_THROWS_AS(r.setStack(90), Error);
}

TEST_CASE("cars regions: with barriers a block is admitted only when all its warps fit", "[cars][regions]") {
  CarsRegions r(100, 20, 10, 8, true);
  CHECK(r.canLaunch(3, 0));  // empty SM
  uint32_t base = 0;
  for (uint32_t w = 0; w < 3; ++w) REQUIRE(r.allocate(0, w, w, 0, base));
  CHECK_FALSE(r.canLaunch(1, 0));  // 10 rows left, a region takes 30
  r.release(0);
  CHECK(r.canLaunch(1, 0));
  CHECK_FALSE(r.canLaunch(2, 0));
}

TEST_CASE("cars regions: a switched-out warp gives its rows to a stalled warp of its block and waits for a barrier",
          "[cars][regions]") {
  // 90 rows, regions of 30: three fit. Block 0 has warps 0..3, block 1 warp 4.
  CarsRegions r(90, 20, 10, 8, false);
  std::vector<bool> at_barrier(8, false);
  r.setRunnable([&](uint32_t w) { return !at_barrier[w]; });
  uint32_t base = 0;
  for (uint32_t w = 0; w < 3; ++w) REQUIRE(r.allocate(0, w, w, 0, base));
  REQUIRE(r.allocate(0, 3, 3, 0, base));
  CHECK(base == RegionAllocator::kStalled);
  REQUIRE(r.allocate(1, 4, 0, 0, base));
  CHECK(base == RegionAllocator::kStalled);
  CHECK(r.runnableStalled(0) == 1);
  CHECK(r.runnableStalled(1) == 1);
  // Warp 1 waits at the barrier and is switched out: the grant for its
  // block gives block 0's stalled warp 3 the rows.
  at_barrier[1] = true;
  r.switchOut(1);
  CHECK_FALSE(r.resident(1));
  uint32_t w = 0;
  bool restore = true;
  REQUIRE(r.grantStalled(0, w, base, restore));
  CHECK(w == 3);
  CHECK(base == 30);
  CHECK_FALSE(restore);
  // Warp 1 waits at a closed barrier: an exit's rows go to warp 4 instead.
  r.release(0);
  REQUIRE(r.grantStalled(-1, w, base, restore));
  CHECK(w == 4);
  CHECK_FALSE(restore);
  CHECK(r.runnableStalled(0) == 0);
  // What a deadlock report says of it.
  CHECK_THAT(r.describe(), Catch::Contains("stalled-warp list [slot 1 (block slot 0, switched out at a barrier, "
                                           "waiting at a barrier)]") &&
                               Catch::Contains("3 warps hold regions of 20 + 10 rows; 0 rows free"));
  // The barrier opens: the next rows freed bring warp 1 back, to be filled.
  at_barrier[1] = false;
  CHECK(r.runnableStalled(0) == 1);
  r.release(2);
  REQUIRE(r.grantStalled(-1, w, base, restore));
  CHECK(w == 1);
  CHECK(base == 60);
  CHECK(restore);
  CHECK(r.resident(1));
  // A warp without registers cannot be switched out.
  CHECK_THROWS_AS(r.switchOut(0), Error);
}
