#include <catch2/catch.hpp>

#include "ir_builder.h"
#include "ptx/analysis/loops.h"

using namespace rfsim::ptx;
using namespace rfsim::ptx::test;

TEST_CASE("loops: a loop with break and continue", "[cfg][ptx]") {
  const Function fn = makeFunction({{}, {bra(5, +1)}, {bra(4, +1)}, {bra(5, -1)}, {bra(1)}, {ret()}});
  const LoopInfo li = findLoops(fn);
  REQUIRE(li.loops.size() == 1);
  CHECK(li.loops[0].header == 1);
  CHECK(li.loops[0].blocks == Blocks{1, 2, 3, 4});
  CHECK(li.loops[0].latches == Blocks{4});
  CHECK(li.loops[0].parent == -1);
  CHECK(li.depth == Blocks{0, 1, 1, 1, 1, 0});
  CHECK(li.innermost == std::vector<int32_t>{-1, 0, 0, 0, 0, -1});
  CHECK_FALSE(li.irreducible);
}

TEST_CASE("loops: nested loops and a self loop", "[cfg][ptx]") {
  const Function fn = makeFunction({
      {},            // 0
      {},            // 1: outer header
      {bra(2, +1)},  // 2: inner header and latch (self loop)
      {bra(1, +1)},  // 3: outer latch
      {},            // 4
      {bra(4, -1)},  // 5: second outer loop, header 4, latch 5
      {ret()},       // 6
  });
  const LoopInfo li = findLoops(fn);
  REQUIRE(li.loops.size() == 3);
  CHECK(li.loops[0].header == 1);
  CHECK(li.loops[0].blocks == Blocks{1, 2, 3});
  const Loop& inner = li.loops[li.innermost[2]];
  CHECK(inner.header == 2);
  CHECK(inner.blocks == Blocks{2});
  CHECK(inner.parent == 0);
  CHECK(inner.depth == 2);
  const Loop& second = li.loops[li.innermost[5]];
  CHECK(second.header == 4);
  CHECK(second.parent == -1);
  CHECK(li.depth == Blocks{0, 1, 2, 1, 1, 1, 0});
}

TEST_CASE("loops: two back edges to one header form one loop", "[cfg][ptx]") {
  const Function fn = makeFunction({
      {},            // 0
      {bra(3, +1)},  // 1: header
      {bra(1)},      // 2: latch
      {bra(1, +1)},  // 3: latch
      {ret()},       // 4
  });
  const LoopInfo li = findLoops(fn);
  REQUIRE(li.loops.size() == 1);
  CHECK(li.loops[0].latches == Blocks{2, 3});
  CHECK(li.loops[0].blocks == Blocks{1, 2, 3});
}

TEST_CASE("loops: irreducible edges are reported, not looped", "[cfg][ptx]") {
  const Function fn = makeFunction({{bra(2, +1)}, {}, {bra(1, +1)}, {ret()}});
  const LoopInfo li = findLoops(fn);
  CHECK(li.irreducible);
  CHECK(li.irreducible_edges.size() == 1);
  CHECK(li.loops.empty());
  CHECK(li.depth == Blocks{0, 0, 0, 0});
}

TEST_CASE("loops: unreachable blocks are in no loop", "[cfg][ptx]") {
  // 3 branches into the loop's latch but nothing reaches 3.
  const Function fn = makeFunction({{}, {}, {bra(1, +1), bra(4)}, {bra(2)}, {ret()}});
  const LoopInfo li = findLoops(fn);
  REQUIRE(li.loops.size() == 1);
  CHECK(li.loops[0].blocks == Blocks{1, 2});
  CHECK(li.depth[3] == 0);
}
