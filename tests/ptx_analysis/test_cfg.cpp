#include <catch2/catch.hpp>

#include "common/error.h"
#include "ir_builder.h"
#include "ptx/analysis/cfg.h"

using namespace rfsim;
using namespace rfsim::ptx;
using namespace rfsim::ptx::test;

TEST_CASE("cfg: branches, fall-through and function exits give the successors", "[cfg][ptx]") {
  const Function fn = makeFunction({
      {work(), bra(3, +1)},  // 0: guarded bra: target, then fall-through
      {bra(4)},              // 1: unguarded bra: target only
      {ret(-1)},             // 2: guarded ret falls through
      {work()},              // 3: no terminator: falls through
      {exit_()},             // 4: exit: no successor
      {ret()},               // 5: only reached from nowhere
  });
  CHECK(fn.blocks[0].succs == Blocks{3, 1});
  CHECK(fn.blocks[1].succs == Blocks{4});
  CHECK(fn.blocks[2].succs == Blocks{3});
  CHECK(fn.blocks[3].succs == Blocks{4});
  CHECK(fn.blocks[4].succs.empty());
  CHECK(fn.blocks[5].succs.empty());
  CHECK(fn.blocks[3].preds == Blocks{0, 2});
  CHECK(fn.blocks[4].preds == Blocks{1, 3});
  CHECK(fn.blocks[5].preds.empty());
  CHECK(leavesFunction(fn.blocks[2]));
  CHECK_FALSE(leavesFunction(fn.blocks[3]));
}

TEST_CASE("cfg: a guarded branch to the next block is one edge, the last block falls off the end", "[cfg][ptx]") {
  const Function fn = makeFunction({{bra(1, +1)}, {work()}});
  CHECK(fn.blocks[0].succs == Blocks{1});
  CHECK(fn.blocks[1].preds == Blocks{0});
  CHECK(fn.blocks[1].succs.empty());
}

TEST_CASE("cfg: rebuilding replaces the old edges", "[cfg][ptx]") {
  Function fn = makeFunction({{bra(2, +1)}, {}, {ret()}});
  fn.blocks[0].instrs.back() = bra(2);
  buildCfg(fn);
  CHECK(fn.blocks[0].succs == Blocks{2});
  CHECK(fn.blocks[1].preds.empty());
  CHECK(fn.blocks[2].preds == Blocks{0, 1});
}

TEST_CASE("cfg: a branch to a block that does not exist is an error", "[cfg][ptx]") {
  Function fn;
  fn.name = "bad";
  fn.blocks.resize(1);
  fn.blocks[0].instrs = {bra(7)};
  CHECK_THROWS_AS(buildCfg(fn), Error);
}

TEST_CASE("cfg: the module form builds every function with a body", "[cfg][ptx]") {
  Module m;
  m.functions.push_back(makeFunction({{bra(1, +1)}, {ret()}}, "a"));
  m.functions[0].blocks[0].succs.clear();
  Function decl;
  decl.name = "vprintf";
  decl.is_extern = true;
  m.functions.push_back(decl);
  buildCfg(m);
  CHECK(m.functions[0].blocks[0].succs == Blocks{1});
}
