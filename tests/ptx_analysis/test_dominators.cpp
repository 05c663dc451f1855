#include <catch2/catch.hpp>

#include "ir_builder.h"
#include "ptx/analysis/dominators.h"

using namespace rfsim::ptx;
using namespace rfsim::ptx::test;

using Ids = std::vector<int32_t>;
constexpr int32_t X = kVirtualExit;
constexpr int32_t U = kUnreachable;

TEST_CASE("dominators: diamond reconverges at the join", "[cfg][ptx]") {
  const Function fn = makeFunction({
      {bra(2, +1)},  // 0: if
      {bra(3)},      // 1: then
      {},            // 2: else, falls into 3
      {ret()},       // 3: join
  });
  CHECK(dominators(fn) == Ids{0, 0, 0, 0});
  const PostDom pd = postDominators(fn);
  CHECK(pd.ipdom == Ids{3, 3, 3, X});
  CHECK(pd.fake_exits.empty());
  CHECK(postDominates(pd, 3, 0));
  CHECK_FALSE(postDominates(pd, 1, 0));
  CHECK(postDominates(pd, X, 2));
  CHECK(postDominates(pd, 2, 2));
  CHECK(reversePostOrder(fn).front() == 0);
  CHECK(reversePostOrder(fn).back() == 3);
}

TEST_CASE("dominators: nested ifs reconverge innermost first", "[cfg][ptx]") {
  const Function fn = makeFunction({
      {bra(4, +1)},  // 0: outer if
      {bra(3, -1)},  // 1: inner if
      {},            // 2: inner then
      {},            // 3: inner join
      {ret()},       // 4: outer join
  });
  const auto idom = dominators(fn);
  CHECK(idom == Ids{0, 0, 1, 1, 0});
  CHECK(dominates(idom, 1, 3));
  CHECK_FALSE(dominates(idom, 2, 3));
  CHECK(postDominators(fn).ipdom == Ids{4, 3, 3, 4, X});
}

TEST_CASE("dominators: a loop with break and continue", "[cfg][ptx]") {
  const Function fn = makeFunction({
      {},            // 0: preheader
      {bra(5, +1)},  // 1: header: leave when p
      {bra(4, +1)},  // 2: continue
      {bra(5, -1)},  // 3: break
      {bra(1)},      // 4: latch
      {ret()},       // 5: after the loop
  });
  CHECK(dominators(fn) == Ids{0, 0, 1, 2, 2, 1});
  // The continue branch's threads meet the break's only after the loop.
  CHECK(postDominators(fn).ipdom == Ids{1, 5, 5, 5, 1, X});
}

TEST_CASE("dominators: early return reconverges only at the virtual exit", "[cfg][ptx]") {
  const Function fn = makeFunction({
      {bra(2, +1)},  // 0
      {ret()},       // 1: early return
      {},            // 2
      {ret()},       // 3
  });
  CHECK(postDominators(fn).ipdom == Ids{X, X, 3, X});
}

TEST_CASE("dominators: guarded exits join the virtual exit and fall through", "[cfg][ptx]") {
  const Function fn = makeFunction({
      {bra(3, +1)},  // 0
      {exit_(+1)},   // 1: some threads exit here
      {},            // 2
      {ret()},       // 3
  });
  CHECK(fn.blocks[1].succs == Blocks{2});
  CHECK(dominators(fn) == Ids{0, 0, 1, 0});
  CHECK(postDominators(fn).ipdom == Ids{X, X, 3, X});

  // A guarded ret before a diamond: the diamond still reconverges at its join.
  const Function g = makeFunction({{ret(+1)}, {bra(3, +1)}, {}, {ret()}});
  CHECK(postDominators(g).ipdom == Ids{X, 3, 3, X});
}

TEST_CASE("dominators: unreachable blocks", "[cfg][ptx]") {
  const Function fn = makeFunction({
      {bra(2)},  // 0
      {},        // 1: nothing branches here
      {ret()},   // 2
  });
  const auto idom = dominators(fn);
  CHECK(idom == Ids{0, U, 0});
  CHECK_FALSE(dominates(idom, 0, 1));
  CHECK(dominates(idom, 1, 1));
  // Post-dominance is defined for it all the same.
  CHECK(postDominators(fn).ipdom == Ids{2, 2, X});
}

TEST_CASE("dominators: a function without a ret still has an exit", "[cfg][ptx]") {
  const Function fn = makeFunction({{bra(2, +1)}, {}, {}});
  CHECK(postDominators(fn).ipdom == Ids{2, 2, X});
  CHECK(postDominators(fn).fake_exits.empty());
}

TEST_CASE("dominators: an infinite loop is connected to the exit at its latch", "[cfg][ptx]") {
  const Function fn = makeFunction({
      {},            // 0
      {bra(3, +1)},  // 1: loop header, divergent
      {bra(4)},      // 2
      {},            // 3
      {bra(1)},      // 4: latch, no way out
  });
  const PostDom pd = postDominators(fn);
  CHECK(pd.fake_exits == Blocks{4});
  CHECK(pd.ipdom == Ids{1, 4, 4, 4, X});
  CHECK(dominators(fn) == Ids{0, 0, 1, 1, 1});
}

TEST_CASE("dominators: an infinite loop beside a path to ret", "[cfg][ptx]") {
  const Function fn = makeFunction({
      {bra(3, +1)},  // 0
      {},            // 1: loop body
      {bra(1)},      // 2: latch
      {ret()},       // 3
  });
  const PostDom pd = postDominators(fn);
  CHECK(pd.fake_exits == Blocks{2});
  CHECK(pd.ipdom == Ids{X, 2, X, X});
}

TEST_CASE("dominators: a self loop that may leave into one that never does", "[cfg][ptx]") {
  const Function fn = makeFunction({
      {bra(0, +1)},  // 0: self loop that may leave
      {bra(1)},      // 1: self loop forever
  });
  const PostDom pd = postDominators(fn);
  CHECK(pd.fake_exits == Blocks{1});
  CHECK(pd.ipdom == Ids{1, X});
}

TEST_CASE("dominators: an irreducible region still gets an answer", "[cfg][ptx]") {
  const Function fn = makeFunction({
      {bra(2, +1)},  // 0: enters the cycle at 1 or 2
      {},            // 1
      {bra(1, +1)},  // 2
      {ret()},       // 3
  });
  CHECK(dominators(fn) == Ids{0, 0, 0, 2});
  CHECK(postDominators(fn).ipdom == Ids{2, 2, 3, X});
}
