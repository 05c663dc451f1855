// parse -> print -> parse -> print on nvcc's PTX (tests/ptx/data): the two
// printed texts are identical, and the two parsed modules are equivalent
// instruction by instruction.
#include <catch2/catch.hpp>

#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <map>

#include "ptx/analysis/callgraph.h"
#include "ptx/analysis/cfg.h"
#include "ptx/analysis/dominators.h"
#include "ptx/analysis/printer.h"
#include "ptx/parser.h"

using namespace rfsim::ptx;

namespace {

std::string dataFile(const std::string& name) { return std::string(RFSIM_SOURCE_DIR) + "/tests/ptx/data/" + name; }

// The first line where a and b differ, or "".
std::string firstDifference(const std::string& a, const std::string& b) {
  size_t line = 1, i = 0;
  for (; i < a.size() && i < b.size() && a[i] == b[i]; ++i)
    if (a[i] == '\n') ++line;
  if (i == a.size() && i == b.size()) return "";
  auto lineAt = [&](const std::string& s) {
    const size_t start = s.rfind('\n', i == 0 ? 0 : i - 1);
    const size_t from = start == std::string::npos ? 0 : start + 1;
    return s.substr(from, s.find('\n', from) - from);
  };
  return fmt::format("line {}:\n  first:  {}\n  second: {}", line, lineAt(a), lineAt(b));
}

std::string symKey(const Module& m, uint32_t s) {
  if (s == kNoSym || s >= m.symbols.size()) return "-";
  const Symbol& y = m.symbols[s];
  // Function-scoped symbols may be renamed (param0 -> param0_1): compare their shape.
  if (y.owner >= 0) return fmt::format("local {} {} {}", static_cast<int>(y.space), static_cast<int>(y.type), y.size);
  return y.name;
}

std::string operandKey(const Module& m, const Function& f, const Operand& o) {
  std::string s = fmt::format("k{} n{} s{} d{} neg{} imm{} b{} sym[{}]", static_cast<int>(o.kind), o.vec_n,
                              static_cast<int>(o.sreg), o.dim, o.negate, o.imm, o.block, symKey(m, o.sym));
  for (uint32_t r : o.regs) s += " " + (r == kNoReg ? std::string("_") : f.regs.at(r).name);
  return s;
}

std::string instrKey(const Module& m, const Function& f, const Instr& in) {
  std::string s = fmt::format("op{} t{} t2{} sp{} nd{} ns{} g[{}]", static_cast<int>(in.op), static_cast<int>(in.type),
                              static_cast<int>(in.type2), static_cast<int>(in.space), in.ndst, in.nsrc,
                              operandKey(m, f, in.guard));
  s += " mods";
  const auto* mods = reinterpret_cast<const unsigned char*>(&in.mods);
  for (size_t i = 0; i < sizeof(Mods); ++i) s += fmt::format(" {}", mods[i]);
  for (unsigned i = 0; i < in.ndst; ++i) s += " D" + operandKey(m, f, in.dst[i]);
  for (unsigned i = 0; i < in.nsrc; ++i) s += " S" + operandKey(m, f, in.src[i]);
  if (in.op == Op::Call) {
    const CallInfo& c = f.calls.at(in.call);
    s += fmt::format(" call ind{} callee{} treg{} ntargets{}", c.indirect, c.indirect ? "" : m.functions.at(c.callee).name,
                     c.target_reg, c.targets.size());
    for (uint32_t a : c.args) s += " a" + symKey(m, a);
    for (uint32_t r : c.rets) s += " r" + symKey(m, r);
  }
  return s;
}

// "" when a and b hold the same functions, blocks and instructions.
std::string difference(const Module& a, const Module& b) {
  if (a.functions.size() != b.functions.size()) return "function count";
  for (size_t i = 0; i < a.functions.size(); ++i) {
    const Function& fa = a.functions[i];
    const Function* fb = b.findFunction(fa.name);
    if (!fb) return "missing function " + fa.name;
    if (fa.params.size() != fb->params.size() || fa.rets.size() != fb->rets.size() || fa.is_entry != fb->is_entry)
      return fa.name + ": signature";
    if (fa.blocks.size() != fb->blocks.size()) return fa.name + ": block count";
    for (size_t bb = 0; bb < fa.blocks.size(); ++bb) {
      const auto& ia = fa.blocks[bb].instrs;
      const auto& ib = fb->blocks[bb].instrs;
      if (ia.size() != ib.size()) return fmt::format("{}: block {} size", fa.name, bb);
      for (size_t k = 0; k < ia.size(); ++k) {
        const std::string ka = instrKey(a, fa, ia[k]), kb = instrKey(b, *fb, ib[k]);
        if (ka != kb) return fmt::format("{}: block {} instr {} (line {}):\n  {}\n  {}", fa.name, bb, k, ia[k].loc.line, ka, kb);
      }
    }
  }
  for (const auto& [name, s] : a.global_symbols) {
    auto it = b.global_symbols.find(name);
    if (it == b.global_symbols.end()) return "missing symbol " + name;
    const Symbol &x = a.symbols[s], &y = b.symbols[it->second];
    if (x.space != y.space || x.type != y.type || x.size != y.size || x.init != y.init ||
        x.init_addrs.size() != y.init_addrs.size())
      return "symbol " + name;
  }
  return "";
}

}  // namespace

TEST_CASE("printer: nvcc's PTX survives parse -> print -> parse -> print", "[ptx][printer][roundtrip]") {
  const std::string file = GENERATE(as<std::string>{}, "kernels.ptx", "calls_rdc.ptx", "calls_debug.ptx", "misc2.ptx");
  INFO(file);
  const Module first = parseFile(dataFile(file));
  const std::string text1 = printModule(first);
  Module second;
  try {
    second = parseString(text1, first.file);
  } catch (const std::exception& e) {
    std::ofstream(std::string("/tmp/rfsim-roundtrip-") + file) << text1;
    FAIL("the printed text does not parse: " << e.what());
  }
  const std::string text2 = printModule(second);
  if (text1 != text2) {
    std::ofstream(std::string("/tmp/rfsim-roundtrip-") + file) << text1;
    std::ofstream(std::string("/tmp/rfsim-roundtrip2-") + file) << text2;
  }
  CHECK(firstDifference(text1, text2) == "");
  CHECK(difference(first, second) == "");

  // The annotations are comments: the annotated text parses the same.
  PrintOptions annotate;
  annotate.annotate = true;
  CHECK(printModule(parseString(printModule(first, annotate), first.file)) == text1);
}

TEST_CASE("analyses on nvcc's PTX: recursion, virtual calls and reconvergence points", "[ptx][cfg][callgraph]") {
  Module m = parseFile(dataFile("calls_rdc.ptx"));
  buildCfg(m);
  const CallGraph cg = buildCallGraph(m);
  auto index = [&](const std::string& name) { return m.function_index.at(name); };
  CHECK(cg.recursive[index("_Z3fibi")]);
  CHECK_FALSE(cg.recursive[index("_Z1kPfi3Bigi")]);
  CHECK_FALSE(cg.address_taken[index("vprintf")]);  // called, not taken
  CHECK(cg.address_taken[index("_Z2f1f")]);         // in `table`
  CHECK(cg.address_taken[index("_ZNK2Sq4areaEv")]); // in a virtual table
  // The kernel's three indirect calls: virtual area(), virtual destructor,
  // and table[i](x); prototypes tell them apart by parameter size.
  const Function& k = m.functions[index("_Z1kPfi3Bigi")];
  std::map<std::string, std::vector<std::string>> by_proto;
  for (const CallInfo& c : k.calls)
    if (c.indirect)
      for (uint32_t t : indirectTargets(m, c, cg.address_taken))
        by_proto[m.prototypes.at(c.prototype).label].push_back(m.functions[t].name);
  CHECK(by_proto["prototype_7"] == std::vector<std::string>{"_ZNK2Sq4areaEv", "_ZNK2Ci4areaEv"});
  CHECK(by_proto["prototype_9"] == std::vector<std::string>{"_Z2f1f", "_Z2f2f"});
  CHECK(by_proto["prototype_8"].size() == 6);  // the destructors of Shape, Sq and Ci
  for (const Function& fn : m.functions) {
    if (fn.blocks.empty()) continue;
    INFO(fn.name);
    const PostDom pd = postDominators(fn);
    const auto idom = dominators(fn);
    for (size_t b = 0; b < fn.blocks.size(); ++b) {
      // Every reconvergence point post-dominates its branch block, and every
      // successor of a reachable block is reachable.
      CHECK(postDominates(pd, pd.ipdom[b], static_cast<uint32_t>(b)));
      if (idom[b] != kUnreachable)
        for (uint32_t s : fn.blocks[b].succs) CHECK(idom[s] != kUnreachable);
    }
  }
}
