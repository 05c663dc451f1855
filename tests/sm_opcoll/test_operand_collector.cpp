// The operand collector: hand-computed cases for the arbiter, the collector
// units, the write ports and the two extension points.
#include <catch2/catch.hpp>

#include <vector>

#include "common/error.h"
#include "sm/opcoll/operand_collector.h"

using namespace rfsim::sm;

namespace {

OperandCollectorConfig cfg16() {
  OperandCollectorConfig c;
  c.num_banks = 16;
  c.general_collectors = 4;
  return c;
}

bool alloc(OperandCollector& oc, uint32_t warp, std::vector<uint16_t> regs, uint64_t tag,
           UnitType u = UnitType::SP) {
  return oc.allocate(warp, u, regs.data(), static_cast<unsigned>(regs.size()), tag);
}

}  // namespace

TEST_CASE("oc: two operands in the same bank take two cycles and one conflict", "[oc]") {
  OperandCollector oc(cfg16());
  REQUIRE(oc.bankOf(0, 1) == oc.bankOf(0, 17));
  REQUIRE(alloc(oc, 0, {1, 17}, 42));
  uint64_t tag = 0;
  oc.cycle(0);
  CHECK_FALSE(oc.peekReady(UnitType::SP, tag));
  CHECK(oc.stats().bank_conflicts == 1);
  oc.cycle(1);
  REQUIRE(oc.popReady(UnitType::SP, tag));
  CHECK(tag == 42);
  CHECK(oc.stats().bank_conflicts == 1);
  CHECK(oc.stats().bank_reads[1] == 2);
  CHECK(oc.stats().totalReads() == 2);
  // Busy in cycles 0 and 1, free in cycle 2.
  oc.cycle(2);
  CHECK(oc.stats().cycles == 3);
  CHECK(oc.stats().occupancy_sum == 2);
  CHECK(oc.busyCollectors() == 0);
  CHECK(oc.idle());
}

TEST_CASE("oc: operands in different banks are read in one cycle", "[oc]") {
  OperandCollector oc(cfg16());
  REQUIRE(alloc(oc, 0, {1, 2, 3}, 7));
  oc.cycle(0);
  uint64_t tag = 0;
  REQUIRE(oc.popReady(UnitType::SP, tag));
  CHECK(tag == 7);
  CHECK(oc.stats().bank_conflicts == 0);
  CHECK(oc.stats().totalReads() == 3);
}

TEST_CASE("oc: a register named twice by one instruction is read once", "[oc]") {
  OperandCollector oc(cfg16());
  REQUIRE(alloc(oc, 0, {5, 5, 21}, 1));  // R5 and R21 share bank 5
  oc.cycle(0);
  oc.cycle(1);
  uint64_t tag = 0;
  CHECK(oc.popReady(UnitType::SP, tag));
  CHECK(oc.stats().totalReads() == 2);
  CHECK(oc.stats().duplicate_reads == 1);
  CHECK(oc.stats().bank_conflicts == 1);
}

TEST_CASE("oc: the warp swizzle moves the same register to another bank", "[oc]") {
  auto c = cfg16();
  OperandCollector on(c);
  CHECK(on.bankOf(0, 3) == 3);
  CHECK(on.bankOf(5, 3) == 8);
  // R1 of warps 0 and 1: banks 1 and 2, no conflict.
  REQUIRE(alloc(on, 0, {1}, 1));
  REQUIRE(alloc(on, 1, {1}, 2));
  on.cycle(0);
  CHECK(on.stats().bank_conflicts == 0);

  c.bank_swizzle = 0;
  OperandCollector off(c);
  CHECK(off.bankOf(5, 3) == 3);
  REQUIRE(alloc(off, 0, {1}, 1));
  REQUIRE(alloc(off, 1, {1}, 2));
  off.cycle(0);
  CHECK(off.stats().bank_conflicts == 1);
}

TEST_CASE("oc: two read ports per bank remove the conflict", "[oc]") {
  auto c = cfg16();
  c.read_ports_per_bank = 2;
  OperandCollector oc(c);
  REQUIRE(alloc(oc, 0, {1, 17}, 9));
  oc.cycle(0);
  uint64_t tag = 0;
  CHECK(oc.popReady(UnitType::SP, tag));
  CHECK(oc.stats().bank_conflicts == 0);
  // A third read of the bank still waits.
  REQUIRE(alloc(oc, 0, {1, 17, 33}, 10));
  oc.cycle(1);
  CHECK_FALSE(oc.peekReady(UnitType::SP, tag));
  CHECK(oc.stats().bank_conflicts == 1);
  oc.cycle(2);
  CHECK(oc.popReady(UnitType::SP, tag));
}

TEST_CASE("oc: collector full when all M collectors are busy", "[oc]") {
  auto c = cfg16();
  c.general_collectors = 2;
  OperandCollector oc(c);
  CHECK(alloc(oc, 0, {1}, 1));
  CHECK(alloc(oc, 1, {1}, 2));
  CHECK_FALSE(oc.canAllocate(UnitType::SP));
  CHECK_FALSE(alloc(oc, 2, {1}, 3));
  CHECK(oc.stats().alloc_failures == 1);
  CHECK(oc.stats().allocations == 2);
  oc.cycle(0);
  // Ready, but dispatch has not taken it: the collector stays occupied.
  CHECK_FALSE(alloc(oc, 2, {1}, 3));
  CHECK(oc.stats().alloc_failures == 2);
  uint64_t tag = 0;
  REQUIRE(oc.popReady(UnitType::SP, tag));
  CHECK(tag == 1);
  CHECK(alloc(oc, 2, {1}, 3));
}

TEST_CASE("oc: per-unit collectors refuse an instruction of another type", "[oc]") {
  auto c = cfg16();
  c.general_collectors = 0;
  c.unit_collectors[static_cast<unsigned>(UnitType::SFU)] = 1;
  c.unit_collectors[static_cast<unsigned>(UnitType::SP)] = 1;
  OperandCollector oc(c);
  CHECK(oc.numCollectors() == 2);
  CHECK_FALSE(alloc(oc, 0, {1}, 1, UnitType::LDST));
  CHECK(alloc(oc, 0, {1}, 2, UnitType::SFU));
  CHECK_FALSE(alloc(oc, 0, {2}, 3, UnitType::SFU));  // the SFU collector is taken; SP's is not lent
  CHECK(alloc(oc, 0, {2}, 4, UnitType::SP));
  CHECK(oc.stats().alloc_failures == 2);
  oc.cycle(0);
  uint64_t tag = 0;
  CHECK_FALSE(oc.popReady(UnitType::LDST, tag));
  REQUIRE(oc.popReady(UnitType::SFU, tag));
  CHECK(tag == 2);
  REQUIRE(oc.popReady(UnitType::SP, tag));
  CHECK(tag == 4);

  // A general collector backs up the per-type ones.
  c.general_collectors = 1;
  OperandCollector mixed(c);
  CHECK(alloc(mixed, 0, {1}, 1, UnitType::SFU));
  CHECK(alloc(mixed, 0, {2}, 2, UnitType::SFU));  // in the general collector
  CHECK_FALSE(alloc(mixed, 0, {3}, 3, UnitType::SFU));
  CHECK_FALSE(alloc(mixed, 0, {3}, 4, UnitType::DP));  // DP has none of its own and the general one is taken
  CHECK(mixed.stats().alloc_failures == 2);
}

TEST_CASE("oc: write-port contention", "[oc]") {
  OperandCollector oc(cfg16());
  CHECK(oc.requestWrite(0, 1));
  CHECK_FALSE(oc.requestWrite(0, 17));  // bank 1's only write port is taken
  CHECK(oc.requestWrite(0, 2));
  CHECK(oc.stats().write_port_conflicts == 1);
  oc.cycle(0);
  CHECK(oc.requestWrite(0, 17));
  // All or nothing: R1 and R33 share bank 1 with R17 booked already.
  const uint16_t pair[2] = {2, 33};
  CHECK(oc.requestWrites(0, pair, 2) == 0);
  CHECK(oc.stats().write_port_conflicts == 2);
  CHECK(oc.stats().bank_writes[2] == 1);  // the refused pair booked nothing
  oc.cycle(1);
  CHECK(oc.requestWrites(0, pair, 2) == 2);
  CHECK(oc.stats().totalWrites() == 5);
  CHECK(oc.stats().bank_writes[1] == 3);
  oc.cycle(2);
  // A pair that alone needs two writes in bank 3 (one port) can never be
  // written whole: one register per cycle, in order.
  const uint16_t same_bank[2] = {3, 19};
  CHECK(oc.requestWrites(0, same_bank, 2) == 1);
  CHECK(oc.requestWrites(0, same_bank + 1, 1) == 0);  // bank 3's port is taken this cycle
  oc.cycle(3);
  CHECK(oc.requestWrites(0, same_bank + 1, 1) == 1);
  CHECK(oc.stats().bank_writes[3] == 2);

  auto c = cfg16();
  c.write_ports_per_bank = 2;
  OperandCollector two(c);
  CHECK(two.requestWrite(0, 1));
  CHECK(two.requestWrite(0, 17));
  CHECK_FALSE(two.requestWrite(0, 33));
}

TEST_CASE("oc: reads and writes share bank ports only when configured", "[oc]") {
  auto c = cfg16();
  uint64_t tag = 0;
  {
    OperandCollector sep(c);
    REQUIRE(alloc(sep, 0, {1}, 1));
    CHECK(sep.requestWrite(0, 17));  // bank 1, this cycle
    sep.cycle(0);
    CHECK(sep.popReady(UnitType::SP, tag));
    CHECK(sep.stats().bank_conflicts == 0);
  }
  c.shared_read_write_ports = true;
  OperandCollector shared(c);
  REQUIRE(alloc(shared, 0, {1, 2}, 1));
  CHECK(shared.requestWrite(0, 17));  // takes bank 1's port in cycle 0
  shared.cycle(0);
  CHECK_FALSE(shared.peekReady(UnitType::SP, tag));
  CHECK(shared.stats().bank_conflicts == 1);
  shared.cycle(1);  // the write booking ended with cycle 0
  CHECK(shared.popReady(UnitType::SP, tag));
}

TEST_CASE("oc: the arbiter serves the oldest instruction first", "[oc]") {
  OperandCollector oc(cfg16());
  // A: R1, R17 (bank 1 twice); B: R33 (bank 1), allocated after A.
  REQUIRE(alloc(oc, 0, {1, 17}, 100));
  REQUIRE(alloc(oc, 0, {33}, 200));
  uint64_t tag = 0;
  oc.cycle(0);  // A.R1; A.R17 and B.R33 conflict
  CHECK(oc.stats().bank_conflicts == 2);
  oc.cycle(1);  // A.R17; B.R33 conflicts
  CHECK(oc.stats().bank_conflicts == 3);
  CHECK(oc.peekReady(UnitType::SP, tag));
  CHECK(tag == 100);
  oc.cycle(2);  // B.R33
  REQUIRE(oc.popReady(UnitType::SP, tag));
  CHECK(tag == 100);
  REQUIRE(oc.popReady(UnitType::SP, tag));
  CHECK(tag == 200);

  // Age, not collector number: W reuses collector 0 but is younger than Z in
  // collector 2.
  REQUIRE(alloc(oc, 0, {1}, 1));       // collector 0
  REQUIRE(alloc(oc, 0, {3}, 2));       // collector 1
  REQUIRE(alloc(oc, 0, {2, 18}, 3));   // collector 2, bank 2 twice
  oc.cycle(3);                         // X, Y ready; Z reads R2
  REQUIRE(oc.popReady(UnitType::SP, tag));
  CHECK(tag == 1);
  REQUIRE(oc.popReady(UnitType::SP, tag));
  CHECK(tag == 2);
  REQUIRE(alloc(oc, 0, {34}, 4));      // W: collector 0, bank 2
  oc.cycle(4);                         // Z.R18 wins bank 2 over W.R34
  REQUIRE(oc.popReady(UnitType::SP, tag));
  CHECK(tag == 3);
  CHECK_FALSE(oc.peekReady(UnitType::SP, tag));
  oc.cycle(5);
  REQUIRE(oc.popReady(UnitType::SP, tag));
  CHECK(tag == 4);
}

TEST_CASE("oc: one read per collector per cycle, as GPGPU-Sim's wavefront allocator", "[oc]") {
  auto c = cfg16();
  c.reads_per_collector = 1;
  OperandCollector oc(c);
  REQUIRE(alloc(oc, 0, {1, 2}, 1));
  oc.cycle(0);
  uint64_t tag = 0;
  CHECK_FALSE(oc.peekReady(UnitType::SP, tag));
  CHECK(oc.stats().collector_port_stalls == 1);
  CHECK(oc.stats().bank_conflicts == 0);
  oc.cycle(1);
  CHECK(oc.popReady(UnitType::SP, tag));
}

namespace {

// Adds a per-warp offset, as a renaming unit would move a warp's registers.
class OffsetTranslator : public RegTranslator {
 public:
  uint32_t offset[4] = {0, 15, 0, 0};
  unsigned calls = 0;
  uint32_t translate(uint32_t warp, uint32_t reg) override {
    ++calls;
    return reg + offset[warp];
  }
};

// Registers >= 8 are "in a slow level": they arrive at cycle 10.
class SlowLevel : public RegFileLevel {
 public:
  unsigned writes = 0;
  uint64_t last_write_cycle = 0;
  ReadReply read(uint32_t, uint32_t reg, uint32_t, uint64_t) override {
    return reg >= 8 ? ReadReply::availableAt(10) : ReadReply::hit();
  }
  void write(uint32_t, uint32_t, uint32_t, uint64_t cycle) override {
    ++writes;
    last_write_cycle = cycle;
  }
};

}  // namespace

TEST_CASE("oc: the translation hook changes banks", "[oc]") {
  auto c = cfg16();
  c.bank_swizzle = 0;
  c.bank_index = BankIndex::kTranslated;
  OffsetTranslator t;
  OperandCollector oc(c);
  CHECK(oc.bankOf(1, 2) == 2);  // baseline: base 0
  oc.baseTranslator().setBase(1, 64);
  CHECK(oc.bankOf(1, 2) == 2);  // 66 % 16
  oc.baseTranslator().setBase(1, 65);
  CHECK(oc.bankOf(1, 2) == 3);
  oc.setTranslator(&t);
  CHECK(oc.bankOf(1, 2) == 1);  // row 17
  REQUIRE(alloc(oc, 0, {1}, 1));
  REQUIRE(alloc(oc, 1, {2}, 2));
  oc.cycle(0);
  CHECK(oc.stats().bank_conflicts == 1);

  // Architectural banking ignores the translated row.
  c.bank_index = BankIndex::kArchitectural;
  OperandCollector arch(c);
  arch.setTranslator(&t);
  unsigned before = t.calls;
  REQUIRE(alloc(arch, 0, {1}, 1));
  REQUIRE(alloc(arch, 1, {2}, 2));
  CHECK(t.calls == before + 2);  // the translator is still asked: the level reads the row
  arch.cycle(0);
  CHECK(arch.stats().bank_conflicts == 0);
}

TEST_CASE("oc: a level that answers 'available at cycle X' delays readiness", "[oc]") {
  OperandCollector oc(cfg16());
  SlowLevel level;
  oc.setLevel(&level);
  REQUIRE(alloc(oc, 0, {1, 9}, 5));
  uint64_t tag = 0;
  for (uint64_t t = 0; t < 10; ++t) {
    oc.cycle(t);
    CHECK_FALSE(oc.peekReady(UnitType::SP, tag));
  }
  oc.cycle(10);
  REQUIRE(oc.popReady(UnitType::SP, tag));
  CHECK(tag == 5);
  CHECK(oc.stats().level_reads == 1);
  CHECK(oc.stats().totalReads() == 1);  // only R1 used a bank

  // Only level reads: ready in the cycle the level names.
  REQUIRE(alloc(oc, 0, {8, 9}, 6));
  oc.cycle(11);  // 10 has passed already
  REQUIRE(oc.popReady(UnitType::SP, tag));
  CHECK(tag == 6);

  CHECK(oc.requestWrite(0, 3));
  CHECK(level.writes == 1);
  CHECK(level.last_write_cycle == 12);  // the cycle after the last cycle(11)
}

TEST_CASE("oc: counters match a hand count over a short run", "[oc]") {
  auto c = cfg16();
  c.general_collectors = 2;
  OperandCollector oc(c);
  uint64_t tag = 0;
  // cycle 0: A = {R1, R17, R2} (banks 1, 1, 2), B = {R33} (bank 1)
  REQUIRE(alloc(oc, 0, {1, 17, 2}, 1));
  REQUIRE(alloc(oc, 0, {33}, 2));
  CHECK_FALSE(alloc(oc, 0, {3}, 3));           // failure 1
  CHECK(oc.requestWrite(0, 4));                // bank 4
  CHECK_FALSE(oc.requestWrite(0, 20));         // bank 4 again: write conflict 1
  oc.cycle(0);  // grants A.R1, A.R2; conflicts A.R17, B.R33 (2)
  oc.cycle(1);  // grants A.R17; conflict B.R33 (3); A ready
  CHECK_FALSE(alloc(oc, 0, {3}, 3));           // failure 2: A is ready but not dispatched
  REQUIRE(oc.popReady(UnitType::SP, tag));
  REQUIRE(alloc(oc, 0, {3}, 3));
  oc.cycle(2);  // grants B.R33, C.R3; both ready
  REQUIRE(oc.popReady(UnitType::SP, tag));
  REQUIRE(oc.popReady(UnitType::SP, tag));
  oc.cycle(3);
  oc.cycle(4);
  const auto& s = oc.stats();
  CHECK(s.allocations == 3);
  CHECK(s.alloc_failures == 2);
  CHECK(s.bank_conflicts == 3);
  CHECK(s.write_port_conflicts == 1);
  CHECK(s.bank_reads[1] == 3);
  CHECK(s.bank_reads[2] == 1);
  CHECK(s.bank_reads[3] == 1);
  CHECK(s.totalReads() == 5);
  CHECK(s.bank_writes[4] == 1);
  CHECK(s.totalWrites() == 1);
  CHECK(s.cycles == 5);
  CHECK(s.occupancy_sum == 2 + 2 + 2 + 0 + 0);
}

TEST_CASE("oc: configurations out of range are errors", "[oc]") {
  OperandCollectorConfig c;
  c.num_banks = 0;
  CHECK_THROWS_AS(OperandCollector(c), rfsim::Error);
  c = {};
  c.num_banks = 65;
  CHECK_THROWS_AS(OperandCollector(c), rfsim::Error);
  c = {};
  c.general_collectors = 0;
  CHECK_THROWS_AS(OperandCollector(c), rfsim::Error);
  c = {};
  c.general_collectors = 65;
  CHECK_THROWS_AS(OperandCollector(c), rfsim::Error);
  c = {};
  OperandCollector oc(c);
  std::vector<uint16_t> nine(9, 1);
  CHECK_THROWS_AS(oc.allocate(0, UnitType::SP, nine.data(), 9, 0), rfsim::Error);
  CHECK_THROWS_AS(oc.setBankMap(BankMap({16, 1, 1})), rfsim::Error);
}
