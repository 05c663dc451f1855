// The operand collector split over sub-cores (collector groups, a bank group
// per sub-core) and its operand reuse caches: hand-computed cases.
#include <catch2/catch.hpp>

#include <vector>

#include "common/error.h"
#include "sm/opcoll/operand_collector.h"

using namespace rfsim::sm;

namespace {

// Volta-like: 8 banks, 2 per sub-core, 8 collectors, 2 per sub-core.
OperandCollectorConfig volta(uint32_t reuse_caches = 0) {
  OperandCollectorConfig c;
  c.num_banks = 8;
  c.sub_cores = 4;
  c.bank_swizzle = 0;
  c.general_collectors = 8;
  c.collector_groups = 4;
  c.reuse_caches = reuse_caches;
  return c;
}

bool alloc(OperandCollector& oc, uint32_t warp, std::vector<uint16_t> regs, uint64_t tag, uint8_t reuse = 0) {
  return oc.allocate(warp, UnitType::SP, regs.data(), static_cast<unsigned>(regs.size()), tag, nullptr, reuse);
}

}  // namespace

TEST_CASE("sub-cores: a warp allocates only its own sub-core's collectors", "[oc][subcore]") {
  OperandCollector oc(volta());
  // Warps 0 and 4 are both sub-core 0, which has 2 of the 8 collectors.
  REQUIRE(alloc(oc, 0, {1}, 1));
  REQUIRE(alloc(oc, 4, {1}, 2));
  CHECK_FALSE(oc.canAllocate(UnitType::SP, 8));
  CHECK_FALSE(alloc(oc, 8, {1}, 3));
  CHECK(oc.stats().alloc_failures == 1);
  // Sub-core 1 is untouched.
  CHECK(oc.canAllocate(UnitType::SP, 1));
  REQUIRE(alloc(oc, 1, {1}, 4));
  CHECK(oc.busyCollectors() == 3);
}

TEST_CASE("sub-cores: each sub-core reads its own 2 banks and warps of different sub-cores never conflict",
          "[oc][subcore]") {
  OperandCollector oc(volta());
  // Warp 0 (sub-core 0): R0 and R2 both in bank 0 of its 2 (banks 0-1).
  CHECK(oc.bankOf(0, 0) == 0);
  CHECK(oc.bankOf(0, 2) == 0);
  CHECK(oc.bankOf(0, 3) == 1);
  // Warp 1 (sub-core 1): banks 2-3; warp 3: banks 6-7.
  CHECK(oc.bankOf(1, 0) == 2);
  CHECK(oc.bankOf(3, 1) == 7);
  REQUIRE(alloc(oc, 0, {0, 2}, 10));  // a conflict in its own bank 0
  REQUIRE(alloc(oc, 1, {0, 2}, 11));  // the same in bank 2: no conflict with warp 0
  oc.cycle(0);
  CHECK(oc.stats().bank_conflicts == 2);
  oc.cycle(1);
  uint64_t tag = 0;
  REQUIRE(oc.popReady(UnitType::SP, tag, 0));
  CHECK(tag == 10);
  CHECK_FALSE(oc.popReady(UnitType::SP, tag, 0));
  REQUIRE(oc.popReady(UnitType::SP, tag, 1));
  CHECK(tag == 11);
  CHECK(oc.stats().bank_reads[0] == 2);
  CHECK(oc.stats().bank_reads[2] == 2);
}

TEST_CASE("sub-cores: dispatch per group takes only that group's ready instructions, any group the oldest",
          "[oc][subcore]") {
  OperandCollector oc(volta());
  REQUIRE(alloc(oc, 2, {1}, 20));  // sub-core 2, allocated first: the oldest
  REQUIRE(alloc(oc, 1, {1}, 21));
  oc.cycle(0);
  uint64_t tag = 0;
  REQUIRE(oc.peekReady(UnitType::SP, tag, 1));
  CHECK(tag == 21);
  CHECK_FALSE(oc.peekReady(UnitType::SP, tag, 0));
  REQUIRE(oc.peekReady(UnitType::SP, tag, OperandCollector::kAnyGroup));
  CHECK(tag == 20);
}

TEST_CASE("sub-cores: collectors that do not split evenly are refused", "[oc][subcore]") {
  OperandCollectorConfig c = volta();
  c.general_collectors = 6;
  CHECK_THROWS_AS(OperandCollector(c), rfsim::Error);
}

TEST_CASE("reuse: an operand flagged by the warp's previous instruction in the same slot is not read from a bank",
          "[oc][reuse]") {
  OperandCollector oc(volta(4));
  // FFMA R4, R0, R1, R2 with R0 flagged (slot 0), then FFMA R5, R0, R3, R2.
  REQUIRE(alloc(oc, 0, {0, 1, 2}, 1, 0b001));
  REQUIRE(alloc(oc, 0, {0, 3, 2}, 2));
  CHECK(oc.stats().reuse_hits == 1);  // R0; R2 was not flagged
  for (uint64_t t = 0; t < 4; ++t) oc.cycle(t);
  CHECK(oc.stats().totalReads() == 5);  // 3 + 2
  uint64_t tag;
  REQUIRE(oc.popReady(UnitType::SP, tag, 0));
  REQUIRE(oc.popReady(UnitType::SP, tag, 0));
  // The second one flagged nothing: its successor reads R0 from a bank.
  REQUIRE(alloc(oc, 0, {0}, 3));
  CHECK(oc.stats().reuse_hits == 1);
}

TEST_CASE("reuse: a hit needs the same slot, the same warp, and no other warp of the scheduler in between",
          "[oc][reuse]") {
  SECTION("another slot") {
    OperandCollector oc(volta(4));
    REQUIRE(alloc(oc, 0, {0, 1}, 1, 0b011));
    REQUIRE(alloc(oc, 0, {1, 0}, 2));  // swapped slots: both read from banks
    CHECK(oc.stats().reuse_hits == 0);
  }
  SECTION("another warp of the same scheduler replaces the entries") {
    OperandCollector oc(volta(4));
    REQUIRE(alloc(oc, 0, {0}, 1, 0b1));
    oc.cycle(0);
    uint64_t tag;
    REQUIRE(oc.popReady(UnitType::SP, tag, 0));
    REQUIRE(alloc(oc, 4, {7}, 2));  // warp 4: scheduler 0 as well
    REQUIRE(alloc(oc, 0, {0}, 3));
    CHECK(oc.stats().reuse_hits == 0);
  }
  SECTION("a warp of another scheduler leaves them") {
    OperandCollector oc(volta(4));
    REQUIRE(alloc(oc, 0, {0}, 1, 0b1));
    REQUIRE(alloc(oc, 1, {0}, 2));  // warp 1: scheduler 1, its own cache
    REQUIRE(alloc(oc, 0, {0}, 3));
    CHECK(oc.stats().reuse_hits == 1);
  }
  SECTION("without reuse caches the flags do nothing") {
    OperandCollector oc(volta(0));
    REQUIRE(alloc(oc, 0, {0}, 1, 0b1));
    REQUIRE(alloc(oc, 0, {0}, 2));
    CHECK(oc.stats().reuse_hits == 0);
  }
}

TEST_CASE("reuse: an instruction whose operands all hit is ready without a bank cycle", "[oc][reuse]") {
  OperandCollector oc(volta(4));
  REQUIRE(alloc(oc, 0, {0, 2}, 1, 0b11));  // R0, R2: the same bank, one conflict
  oc.cycle(0);
  oc.cycle(1);
  uint64_t tag = 0;
  REQUIRE(oc.popReady(UnitType::SP, tag, 0));
  CHECK(oc.stats().bank_conflicts == 1);
  REQUIRE(alloc(oc, 0, {0, 2}, 2));
  CHECK(oc.stats().reuse_hits == 2);
  oc.cycle(2);
  REQUIRE(oc.popReady(UnitType::SP, tag, 0));
  CHECK(tag == 2);
  CHECK(oc.stats().bank_conflicts == 1);
  CHECK(oc.stats().totalReads() == 2);
}

TEST_CASE("reuse: an instruction with fewer operands leaves the higher slots", "[oc][reuse]") {
  OperandCollector oc(volta(4));
  REQUIRE(alloc(oc, 0, {0, 1}, 1, 0b10));  // R1 flagged in slot 1
  oc.cycle(0);
  uint64_t tag;
  REQUIRE(oc.popReady(UnitType::SP, tag, 0));
  REQUIRE(alloc(oc, 0, {5}, 2));  // slot 0 only
  REQUIRE(alloc(oc, 0, {6, 1}, 3));
  CHECK(oc.stats().reuse_hits == 1);
}
