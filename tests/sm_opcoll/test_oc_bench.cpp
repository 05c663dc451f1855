// Cost of one OperandCollector::cycle(): hidden from ctest (tag [.]); run with
//   test_sm_opcoll "[oc-bench]" -s
#include <catch2/catch.hpp>

#include <ctime>
#include <cstdio>

#include "sm/opcoll/operand_collector.h"

using namespace rfsim::sm;

namespace {

double nsPerCycle(OperandCollector& oc, uint64_t cycles, bool busy) {
  const uint16_t regs[3][3] = {{1, 17, 2}, {3, 4, 19}, {5, 6, 7}};
  uint64_t tag = 0, n = 0, sink = 0;
  std::clock_t t0 = std::clock();  // CPU time: the build machine is shared
  for (uint64_t now = 0; now < cycles; ++now) {
    if (busy) {
      // Keep all collectors busy: dispatch one, refill to full.
      if (oc.popReady(UnitType::SP, tag)) sink += tag;
      while (oc.allocate(static_cast<uint32_t>(n % 64), UnitType::SP, regs[n % 3], 3, n)) ++n;
      oc.requestWrite(static_cast<uint32_t>(now % 64), static_cast<uint16_t>(now % 32));
    }
    oc.cycle(now);
  }
  std::clock_t t1 = std::clock();
  REQUIRE(sink + 1 > 0);
  return double(t1 - t0) * 1e9 / CLOCKS_PER_SEC / double(cycles);
}

}  // namespace

TEST_CASE("oc bench: ns per cycle(), 16 banks, 8 collectors", "[.][oc-bench]") {
  OperandCollectorConfig c;
  c.num_banks = 16;
  c.general_collectors = 8;
  const uint64_t cycles = 20'000'000;
  OperandCollector idle(c);
  double ni = nsPerCycle(idle, cycles, false);
  OperandCollector busy(c);
  // Busy: the loop also pays for allocate/popReady/requestWrite; measure them
  // apart from cycle() by timing the same traffic with cycle() doing the work.
  double nb = nsPerCycle(busy, cycles / 4, true);
  std::printf("idle cycle(): %.2f ns; busy loop (8 collectors, 3 operands, 1 write, alloc+pop+cycle): %.2f ns\n",
              ni, nb);
  std::printf("busy: avg occupancy %.2f collectors, %.3f conflicts/cycle\n",
              double(busy.stats().occupancy_sum) / double(busy.stats().cycles),
              double(busy.stats().bank_conflicts) / double(busy.stats().cycles));
}
