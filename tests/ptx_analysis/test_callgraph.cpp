#include <catch2/catch.hpp>

#include "common/error.h"
#include "ir_builder.h"
#include "ptx/analysis/callgraph.h"

using namespace rfsim;
using namespace rfsim::ptx;
using namespace rfsim::ptx::test;

namespace {

// Functions of one block that make their calls and return.
struct ModuleBuilder {
  Module m;
  std::vector<uint32_t> fsym;  // per function: its function symbol

  uint32_t fn(const std::string& name, unsigned nparams = 0, unsigned nrets = 0, bool entry = false) {
    const auto f = static_cast<uint32_t>(m.functions.size());
    Function fn;
    fn.name = name;
    fn.is_entry = entry;
    fn.regs = {{"%p0", Type::Pred}, {"%r1", Type::S32}, {"%rd2", Type::U64}};
    for (unsigned i = 0; i < nparams + nrets; ++i) {
      Symbol s;
      s.name = i < nparams ? name + "_param_" + std::to_string(i) : "func_retval" + std::to_string(i - nparams);
      s.space = Space::Param;
      s.type = Type::B32;
      s.size = 4;
      s.owner = static_cast<int32_t>(f);
      (i < nparams ? fn.params : fn.rets).push_back(static_cast<uint32_t>(m.symbols.size()));
      m.symbols.push_back(s);
    }
    fn.blocks.resize(1);
    fn.blocks[0].instrs = {ret()};
    m.functions.push_back(fn);
    m.function_index[name] = f;
    Symbol s;
    s.name = name;
    s.is_function = true;
    s.function = f;
    fsym.push_back(static_cast<uint32_t>(m.symbols.size()));
    m.symbols.push_back(s);
    return f;
  }
  void addCall(uint32_t caller, CallInfo c) {
    Function& fn = m.functions[caller];
    Instr in;
    in.op = Op::Call;
    in.call = static_cast<uint32_t>(fn.calls.size());
    fn.calls.push_back(std::move(c));
    auto& instrs = fn.blocks[0].instrs;
    instrs.insert(instrs.end() - 1, in);
  }
  void call(uint32_t caller, uint32_t callee) {
    CallInfo c;
    c.callee = callee;
    addCall(caller, c);
  }
  void callIndirect(uint32_t caller, std::vector<uint32_t> targets = {}, uint32_t prototype = kNoSym) {
    CallInfo c;
    c.indirect = true;
    c.target_reg = 2;
    c.targets = std::move(targets);
    c.prototype = prototype;
    addCall(caller, c);
  }
  // mov.u64 %rd2, f;  in `in`
  void takeAddress(uint32_t in, uint32_t f) {
    Instr mov;
    mov.op = Op::Mov;
    mov.type = Type::U64;
    mov.ndst = 1;
    mov.dst[0] = reg(2);
    mov.nsrc = 1;
    mov.src[0] = sym(fsym[f]);
    auto& instrs = m.functions[in].blocks[0].instrs;
    instrs.insert(instrs.begin(), mov);
  }
  // A .callprototype with `nparams` parameters and `nrets` returns; its index.
  uint32_t prototype(const std::string& label, unsigned nparams, unsigned nrets) {
    Prototype p;
    p.label = label;
    p.params.assign(nparams, Type::B32);
    p.param_sizes.assign(nparams, 4);
    p.rets.assign(nrets, Type::B32);
    p.ret_sizes.assign(nrets, 4);
    m.prototypes.push_back(p);
    return static_cast<uint32_t>(m.prototypes.size() - 1);
  }
};

using Fns = std::vector<uint32_t>;

// Position of f in the bottom-up order.
size_t pos(const CallGraph& cg, uint32_t f) {
  return std::find(cg.bottom_up.begin(), cg.bottom_up.end(), f) - cg.bottom_up.begin();
}

}  // namespace

TEST_CASE("callgraph: direct calls, callers and a bottom-up order", "[cfg][ptx][callgraph]") {
  ModuleBuilder b;
  const uint32_t k = b.fn("kernel", 0, 0, true), a = b.fn("a"), c = b.fn("c");
  b.call(k, a);
  b.call(k, c);
  b.call(a, c);
  b.call(a, c);  // twice: one edge
  const CallGraph cg = buildCallGraph(b.m);
  CHECK(cg.callees[k] == Fns{a, c});
  CHECK(cg.callees[a] == Fns{c});
  CHECK(cg.callers[c] == Fns{k, a});
  CHECK(cg.recursive == std::vector<bool>{false, false, false});
  CHECK(cg.bottom_up == Fns{c, a, k});
  CHECK(cg.sccs.size() == 3);
  CHECK(cg.unresolved_indirect_calls == 0);
}

TEST_CASE("callgraph: direct and mutual recursion are strongly connected components", "[cfg][ptx][callgraph]") {
  ModuleBuilder b;
  const uint32_t k = b.fn("kernel", 0, 0, true), fib = b.fn("fib", 1, 1), even = b.fn("even", 1, 1),
                 odd = b.fn("odd", 1, 1), leaf = b.fn("leaf");
  b.call(k, fib);
  b.call(fib, fib);
  b.call(k, even);
  b.call(even, odd);
  b.call(odd, even);
  b.call(odd, leaf);
  const CallGraph cg = buildCallGraph(b.m);
  CHECK(cg.recursive[fib]);
  CHECK(cg.recursive[even]);
  CHECK(cg.recursive[odd]);
  CHECK_FALSE(cg.recursive[k]);
  CHECK_FALSE(cg.recursive[leaf]);
  CHECK(cg.scc[even] == cg.scc[odd]);
  CHECK(cg.scc[fib] != cg.scc[even]);
  CHECK(cg.sccs[cg.scc[even]] == Fns{even, odd});
  // Callees before callers; a component's members side by side.
  CHECK(pos(cg, leaf) < pos(cg, odd));
  CHECK(pos(cg, odd) < pos(cg, k));
  CHECK(pos(cg, fib) < pos(cg, k));
  CHECK((pos(cg, even) > pos(cg, odd) ? pos(cg, even) - pos(cg, odd) : pos(cg, odd) - pos(cg, even)) == 1);
  CHECK(pos(cg, k) == 4);

  // One iteration of each recursive component: its functions counted once.
  const auto d = maxPathWeight(cg, {20, 8, 5, 7, 3});
  CHECK(d[leaf] == 3);
  CHECK(d[fib] == 8);
  CHECK(d[even] == 5 + 7 + 3);
  CHECK(d[odd] == 5 + 7 + 3);
  CHECK(d[k] == 20 + 15);
}

TEST_CASE("callgraph: indirect calls go to their .calltargets", "[cfg][ptx][callgraph]") {
  ModuleBuilder b;
  const uint32_t k = b.fn("kernel", 0, 0, true), f1 = b.fn("f1", 1), f2 = b.fn("f2", 1), f3 = b.fn("f3", 1);
  b.takeAddress(k, f3);
  b.callIndirect(k, {f2, f1});
  const CallGraph cg = buildCallGraph(b.m);
  CHECK(cg.callees[k] == Fns{f1, f2});
  CHECK(cg.address_taken == std::vector<bool>{false, false, false, true});
}

TEST_CASE("callgraph: without .calltargets, indirect calls reach every matching address-taken function",
          "[cfg][ptx][callgraph]") {
  ModuleBuilder b;
  const uint32_t k = b.fn("kernel", 0, 0, true), one = b.fn("one", 1, 1), two = b.fn("two", 2, 1),
                 never = b.fn("never", 1, 1), vt = b.fn("vtable_entry", 1, 1);
  b.takeAddress(k, one);
  b.takeAddress(one, two);
  // A virtual table: the address of vtable_entry in a global's initialiser.
  Symbol table;
  table.name = "_ZTV1A";
  table.space = Space::Global;
  table.type = Type::U64;
  table.count = 2;
  table.size = 16;
  table.init.assign(16, 0);
  table.init_addrs = {{8, b.fsym[vt]}};
  b.m.symbols.push_back(table);

  SECTION("no prototype: every address-taken function") {
    b.callIndirect(k);
    const CallGraph cg = buildCallGraph(b.m);
    CHECK(cg.callees[k] == Fns{one, two, vt});
    CHECK(cg.callers[vt] == Fns{k});
    CHECK(cg.callers[never].empty());
  }
  SECTION("a prototype filters by parameter and return count") {
    b.callIndirect(k, {}, b.prototype("prototype_0", 1, 1));
    const CallGraph cg = buildCallGraph(b.m);
    CHECK(cg.callees[k] == Fns{one, vt});
  }
  SECTION("no candidate at all is counted as unresolved") {
    b.callIndirect(k, {}, b.prototype("prototype_1", 3, 0));
    const CallGraph cg = buildCallGraph(b.m);
    CHECK(cg.callees[k].empty());
    CHECK(cg.unresolved_indirect_calls == 1);
  }
}

TEST_CASE("callgraph: an indirect call can close a recursive cycle", "[cfg][ptx][callgraph]") {
  ModuleBuilder b;
  const uint32_t k = b.fn("kernel", 0, 0, true), visit = b.fn("visit", 1);
  b.takeAddress(k, visit);
  b.call(k, visit);
  b.callIndirect(visit);
  const CallGraph cg = buildCallGraph(b.m);
  CHECK(cg.recursive[visit]);
  CHECK(maxPathWeight(cg, {4, 6})[k] == 10);
}

// CARS section III-B, Fig. 4. The text gives the figure's numbers, not its
// graph: kernel FRU 20, largest function FRU 10, Low-watermark 20 + 10 = 30,
// High-watermark = MaxStackDepth of the root = 56 along the bold path. This
// call graph has those numbers: the bold path is kernel -> A -> C -> E -> F
// (20 + 10 + 8 + 10 + 8 = 56); the other paths are shallower.
TEST_CASE("callgraph: CARS Fig. 4 watermarks from MaxStackDepth", "[cfg][ptx][callgraph][cars]") {
  ModuleBuilder b;
  const uint32_t k = b.fn("kernel", 0, 0, true), A = b.fn("A"), B = b.fn("B"), C = b.fn("C"), D = b.fn("D"),
                 E = b.fn("E"), F = b.fn("F");
  b.call(k, A);
  b.call(k, B);
  b.call(A, C);
  b.call(A, D);
  b.call(B, E);
  b.call(C, E);
  b.call(E, F);
  b.call(D, F);
  const std::vector<uint64_t> fru{20, 10, 6, 8, 4, 10, 8};
  const CallGraph cg = buildCallGraph(b.m);
  const auto depth = maxPathWeight(cg, fru);
  CHECK(depth[F] == 8);
  CHECK(depth[E] == 18);
  CHECK(depth[D] == 12);
  CHECK(depth[C] == 26);
  CHECK(depth[B] == 24);
  CHECK(depth[A] == 36);
  const uint64_t high = depth[k];
  const uint64_t low = fru[k] + *std::max_element(fru.begin() + 1, fru.end());
  CHECK(high == 56);
  CHECK(low == 30);
}

TEST_CASE("callgraph: bad indices are errors", "[cfg][ptx][callgraph]") {
  ModuleBuilder b;
  const uint32_t k = b.fn("kernel", 0, 0, true);
  b.call(k, 9);
  CHECK_THROWS_AS(buildCallGraph(b.m), Error);
  CallGraph cg = buildCallGraph(ModuleBuilder().m);
  CHECK_THROWS_AS(maxPathWeight(cg, {1}), Error);
}
