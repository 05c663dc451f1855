// R2D2's SM unit (model/mech/r2d2/r2d2_sm.h): the timing of the three
// linear blocks as the paper's sections 3 and 4.1 run them -- the markers
// and redirects are the instruction fetch logic's, not issued instructions;
// the coefficient block runs on the scalar pipeline -- and the linear
// operands' add (sections 4.3, 5.4) as a pipelined stage, not
// operand-collector hold time.
#include <catch2/catch.hpp>

#include <string>

#include "../mech_test_util.h"

using namespace rfsim;
using namespace rfsim::test;

namespace {

config::GpuConfig cfgR2d2(const std::vector<std::string>& sets = {}) { return v100("r2d2", sets); }
uint64_t r2(const Run& r, const std::string& key) { return total(r, "r2d2." + key, true, "r2d2"); }

}  // namespace

TEST_CASE("r2d2 SM: vecadd's linear blocks issue their instructions only, the fetch logic does the rest",
          "[mech][r2d2][timing]") {
  // vecadd: 16 blocks of 256 threads (8 warps) on one SM, 8 resident. Its
  // transformed code (rfsim backend --workload vecadd --mech r2d2 --print):
  //   coefficient block   13 flagged instructions (and two parameter moves
  //                       the allocator left unflagged), r2d2.end 0
  //   thread-index block  3 instructions, r2d2.end 1 (the first block's
  //                       other warps: the copy, then r2d2.wait, bra body)
  //   block-index block   4 instructions, r2d2.end 2
  const Run r = run(cfgR2d2({"gpu.num_sms=1", "sm.max_blocks=8"}), "vecadd");
  REQUIRE(r.passed);
  REQUIRE(r2(r, "transformed") == 1);
  CHECK(r2(r, "coef_instrs") == 13);
  CHECK(r2(r, "tr_instrs") == 8 * 3);
  CHECK(r2(r, "br_instrs") == 16 * 4);
  CHECK(r2(r, "linear_instrs") == 13 + 8 * 3 + 16 * 4);
  // Section 4.1's flags and starting points: one r2d2.end 0, eight r2d2.end
  // 1, seven r2d2.wait and seven redirects to the body, sixteen r2d2.end 2.
  CHECK(r2(r, "fetch_logic_ops") == 1 + 8 + 7 + 7 + 16);
  // None of them took an issue slot: they executed (the functional count)
  // but were not issued (the SM's).
  CHECK(total(r, "gpu.warp_instrs") + r2(r, "fetch_logic_ops") == r.totals.warp_instrs);
  // Section 3: the coefficient block on the scalar pipeline (all 15).
  CHECK(r2(r, "scalar_coef_instrs") == 15);
  CHECK(r2(r, "coef_blocks") == 1);
  CHECK(r2(r, "br_blocks") == 16);
}

TEST_CASE("r2d2 SM: the linear operands' add is a pipelined stage, not collector hold time",
          "[mech][r2d2][timing]") {
  // vecadd's body reads a linear register in its bounds check (setp, all
  // 128 warps) and in its two loads and its store (125 warps in range):
  // 503 adds. Held in an operand collector (8 per SM), a 60-cycle add cost
  // 503 x 61 / 8 = 3835 collector-cycles on the one SM (1994 -> 4844
  // cycles before); in the unit's pipeline it only lengthens each warp's
  // chain of compare, load, add, store by 3 x 60, overlapped by the 8
  // resident blocks, twice (16 blocks): 360, bounded here at twice that.
  const Run a = run(cfgR2d2({"gpu.num_sms=1", "sm.max_blocks=8", "mechanisms.r2d2.add_latency=0"}), "vecadd");
  const Run b = run(cfgR2d2({"gpu.num_sms=1", "sm.max_blocks=8", "mechanisms.r2d2.add_latency=60"}), "vecadd");
  REQUIRE(a.passed);
  REQUIRE(b.passed);
  CHECK(r2(b, "linear_adds") == 128 + 125 * 3);
  CHECK(b.totals.cycles > a.totals.cycles);
  CHECK(b.totals.cycles - a.totals.cycles <= 2 * (2 * 3 * 60));
}
