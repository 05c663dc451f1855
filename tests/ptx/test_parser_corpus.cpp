#include <catch2/catch.hpp>

#include <array>
#include <set>

#include "ptx_test_util.h"

using namespace rfsim;
using namespace rfsim::ptx;

namespace {
Module load(const char* name) {
  return parseFile(std::string(RFSIM_SOURCE_DIR) + "/tests/ptx/data/" + name);
}
std::set<Op> opsOf(const Module& m) {
  std::set<Op> ops;
  for (const auto& f : m.functions)
    for (const auto& b : f.blocks)
      for (const auto& in : b.instrs) ops.insert(in.op);
  return ops;
}
}  // namespace

// Whole files from nvcc 13 (tests/ptx/data/README.md says how each was made).
TEST_CASE("parser: nvcc corpus of real kernels parses", "[ptx]") {
  const Module k = load("kernels.ptx");
  for (const char* name : {"_Z4vaddPKfS0_Pfi", "_Z5sgemmPKfS0_Pfiiiff", "_Z6reducePK6float4Pfi",
                           "_Z4histPKhPji", "_Z3bfsPKiS0_PiS1_ii", "_Z4spmvPKiS0_PKdS2_Pdi",
                           "_Z5nbodyP6float4P6float3if", "_Z4f64kPdi"}) {
    INFO(name);
    const Function* f = k.findFunction(name);
    REQUIRE(f != nullptr);
    CHECK(f->is_entry);
    CHECK_FALSE(f->blocks.empty());
  }
  const auto ops = opsOf(k);
  for (Op op : {Op::Shfl, Op::Vote, Op::Atom, Op::Bar, Op::Membar, Op::Brev, Op::Popc, Op::Clz,
                Op::Prmt, Op::Bfind, Op::Shf, Op::Match, Op::Dp4a, Op::Activemask, Op::Nanosleep,
                Op::Rsqrt, Op::Fma, Op::Cvt, Op::Sad, Op::Copysign}) {
    INFO(opName(op));
    CHECK(ops.count(op) == 1);
  }
  // Every label operand points at a block of its function.
  for (const auto& f : k.functions)
    for (const auto& b : f.blocks)
      for (const auto& in : b.instrs)
        if (in.op == Op::Bra) CHECK(in.src[0].block < f.blocks.size());
}

TEST_CASE("parser: nvcc corpus with calls, virtual dispatch and debug info", "[ptx]") {
  const Module rdc = load("calls_rdc.ptx");
  const Function& k = *rdc.findFunction("_Z1kPfi3Bigi");
  size_t indirect = 0, direct = 0;
  for (const CallInfo& c : k.calls) {
    if (c.indirect) {
      ++indirect;
      CHECK(c.prototype < rdc.prototypes.size());
    } else {
      ++direct;
    }
  }
  CHECK(indirect >= 3);
  CHECK(direct >= 4);
  CHECK(rdc.findFunction("vprintf")->is_extern);
  const Symbol& table = rdc.symbols[rdc.global_symbols.at("table")];
  CHECK(table.init_addrs.size() == 2);
  CHECK(rdc.symbols[rdc.global_symbols.at("cc")].space == Space::Const);
  const Function& lb = *rdc.findFunction("_Z2lbPf");
  CHECK(lb.maxntid[0] == 256);
  CHECK(lb.minnctapersm == 4);

  const Module dbg = load("calls_debug.ptx");
  CHECK(dbg.findFunction("_Z3fibi") != nullptr);
  CHECK(dbg.functions.size() > rdc.functions.size());

  const Module misc = load("misc2.ptx");
  CHECK(misc.findFunction("_Z3dynPf") != nullptr);
}

TEST_CASE("parser: nvcc corpus with managed variables, string tables and assert", "[ptx]") {
  const Module m = load("edge.ptx");
  const Symbol& managed = m.symbols[m.global_symbols.at("mcount")];
  CHECK(managed.space == Space::Global);
  CHECK(managed.size == 4);
  const Symbol& names = m.symbols[m.global_symbols.at("names")];
  REQUIRE(names.init_addrs.size() == 3);
  CHECK(m.symbols[names.init_addrs[2].second].name == "$str$2");
  CHECK(names.init_addrs[2].first == 16);
  CHECK(m.findFunction("__assertfail")->is_extern);
  CHECK(m.findFunction("__assertfail")->params.size() == 5);
  const auto ops = opsOf(m);
  CHECK(ops.count(Op::Brkpt) == 1);
  CHECK(ops.count(Op::Call) == 1);
}
