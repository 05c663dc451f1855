// Linking separately compiled PTX modules (ptx/link.h): declarations bind to
// definitions across modules, weak and strong definitions, the errors, and
// the translation unit the back end keeps apart (a call into another unit
// follows the full ABI); vtables and constant tables as nvcc emits them for
// the suite's workloads.
#include <catch2/catch.hpp>

#include <string>

#include "backend/backend.h"
#include "common/error.h"
#include "ptx/analysis/callgraph.h"
#include "ptx/link.h"
#include "ptx/parser.h"

using namespace rfsim;
using namespace rfsim::ptx;

namespace {

const char* const kHeader = ".version 9.0\n.target sm_75\n.address_size 64\n";

// The kernel unit: calls `twice`, declared only, and reads `counter`, declared only.
const char* const kKernel = R"(
.extern .global .align 4 .u32 counter;
.extern .func (.param .b32 func_retval0) twice(.param .b32 twice_param_0);
.visible .entry k(.param .u64 k_param_0)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [k_param_0];
  cvta.to.global.u64 %rd2, %rd1;
  ld.global.u32 %r1, [counter];
  {
  .param .b32 param0;
  st.param.b32 [param0], %r1;
  .param .b32 retval0;
  call.uni (retval0), twice, (param0);
  ld.param.b32 %r2, [retval0];
  }
  st.global.u32 [%rd2], %r2;
  ret;
}
)";

// The library unit: defines `twice` with `linkage`, and `counter` unless
// value < 0.
std::string lib(const std::string& linkage, int value = 7) {
  const std::string var =
      value < 0 ? "" : ".visible .global .align 4 .u32 counter = " + std::to_string(value) + ";\n";
  return std::string(kHeader) + var + linkage +
         R"( .func (.param .b32 func_retval0) twice(.param .b32 twice_param_0)
{
  .reg .b32 %r<3>;
  ld.param.u32 %r1, [twice_param_0];
  add.s32 %r2, %r1, %r1;
  st.param.b32 [func_retval0], %r2;
  ret;
}
)";
}

Module kernelUnit() { return parseString(std::string(kHeader) + kKernel, "kernel.ptx"); }

}  // namespace

TEST_CASE("link: a declaration binds to the other module's definition", "[ptx][link]") {
  std::vector<Module> mods;
  mods.push_back(kernelUnit());
  mods.push_back(parseString(lib(".visible"), "lib.ptx"));
  const Module m = link(std::move(mods));
  CHECK(m.file == "kernel.ptx+lib.ptx");
  const Function* twice = m.findFunction("twice");
  REQUIRE(twice);
  CHECK_FALSE(twice->is_extern);
  CHECK(twice->unit == 1);
  CHECK_FALSE(twice->blocks.empty());
  const Function* k = m.findFunction("k");
  REQUIRE(k);
  CHECK(k->unit == 0);
  REQUIRE(k->calls.size() == 1);
  CHECK(&m.functions[k->calls[0].callee] == twice);
  // The variable: one symbol, the definition, with its initial value.
  auto it = m.global_symbols.find("counter");
  REQUIRE(it != m.global_symbols.end());
  const Symbol& c = m.symbols[it->second];
  CHECK_FALSE(c.is_extern);
  CHECK(c.size == 4);
  REQUIRE(c.init.size() == 4);
  CHECK(c.init[0] == 7);
  // The callee's parameter is its own symbol, owned by it.
  REQUIRE(twice->params.size() == 1);
  CHECK(m.symbols[twice->params[0]].name == "twice_param_0");
  CHECK(m.symbols[twice->params[0]].owner == static_cast<int32_t>(twice - m.functions.data()));
  // The linked module compiles; the kernel's call into the other unit
  // follows the full ABI, as its compiler could not know the callee.
  const backend::CompiledModule cm = backend::compileModule(m);
  const Function& mk = *cm.machine.findFunction("k");
  REQUIRE(mk.calls.size() == 1);
  CHECK_FALSE(mk.calls[0].clobbers_known);
}

TEST_CASE("link: weak and strong definitions, and the errors", "[ptx][link]") {
  auto two = [](const std::string& a, const std::string& b) {
    std::vector<Module> mods;
    mods.push_back(parseString(a, "a.ptx"));
    mods.push_back(parseString(b, "b.ptx"));
    return link(std::move(mods));
  };
  // A weak definition gives way to a strong one; of two weak ones the first stays.
  CHECK(two(lib(".weak", 1), lib(".visible", -1)).findFunction("twice")->unit == 1);
  CHECK(two(lib(".visible", 1), lib(".weak", -1)).findFunction("twice")->unit == 0);
  CHECK(two(lib(".weak", 1), lib(".weak", -1)).findFunction("twice")->unit == 0);
  // Two strong definitions of a function, or two definitions of a variable.
  CHECK_THROWS_WITH(two(lib(".visible", -1), lib(".visible", -1)),
                    Catch::Contains("a.ptx") && Catch::Contains("b.ptx") && Catch::Contains("function 'twice'"));
  CHECK_THROWS_WITH(two(lib(".weak", 1), lib(".weak", 2)), Catch::Contains("variable 'counter'"));
  // Parameters that disagree with the declaration.
  std::string bad = lib(".visible");
  bad.replace(bad.find("twice(.param .b32 twice_param_0)"), 32,
              "twice(.param .b32 twice_param_0, .param .b32 twice_param_1)");
  CHECK_THROWS_WITH(two(std::string(kHeader) + kKernel, bad),
                    Catch::Contains("function 'twice'") && Catch::Contains("1 parameters") &&
                        Catch::Contains("2 and 1"));
  // Another architecture.
  std::string other = lib(".visible");
  other.replace(other.find("sm_75"), 5, "sm_80");
  CHECK_THROWS_WITH(two(std::string(kHeader) + kKernel, other), Catch::Contains(".target sm_75"));
  // A declaration nobody defines stays extern.
  CHECK(two(std::string(kHeader) + kKernel, std::string(kHeader)).findFunction("twice")->is_extern);
  CHECK_THROWS_AS(link({}), Error);
}

TEST_CASE("link: parseAndLink reads the files and names a missing one", "[ptx][link]") {
  CHECK_THROWS_WITH(parseAndLink({"/nonexistent/a.ptx"}), Catch::Contains("/nonexistent/a.ptx"));
  const std::string dir = std::string(RFSIM_SOURCE_DIR) + "/workloads/mlchain/";
  const Module m = parseAndLink({dir + "mlchain.ptx", dir + "lib/mlchain_lib.ptx"});
  for (const char* k : {"kmeans_assign", "kmeans_update"}) {
    INFO(k);
    const Function* f = m.findFunction(k);
    REQUIRE(f);
    for (const CallInfo& c : f->calls) {
      CHECK_FALSE(m.functions[c.callee].is_extern);
      CHECK(m.functions[c.callee].unit == 1);
    }
  }
}

// nvcc -rdc puts a class's vtable (.weak .global .u64 _ZTV...[] = {0, 0,
// methods...}) in the unit that constructs its objects, where the methods
// defined in another unit are only .extern declarations: the vtable's
// entries must bind to the other unit's definitions, and the virtual calls
// reach them (their targets are the functions whose address is taken).
TEST_CASE("link: a vtable names methods another unit defines", "[ptx][link]") {
  for (const char* w : {"virtual_dispatch", "traffic"}) {
    INFO(w);
    const std::string dir = std::string(RFSIM_SOURCE_DIR) + "/workloads/" + w + "/";
    const Module m = parseAndLink({dir + w + ".ptx", dir + "lib/" + w + "_lib.ptx"});
    int vtables = 0;
    for (const Symbol& s : m.symbols) {
      if (s.owner >= 0 || s.name.rfind("_ZTV", 0) != 0) continue;
      INFO(s.name);
      ++vtables;
      CHECK_FALSE(s.is_extern);
      CHECK(s.init_addrs.size() == s.count - 2);  // offset-to-top and RTTI are 0
      for (const auto& [offset, target] : s.init_addrs) {
        REQUIRE(target < m.symbols.size());
        REQUIRE(m.symbols[target].is_function);
        const Function& f = m.functions[m.symbols[target].function];
        INFO(f.name);
        CHECK_FALSE(f.is_extern);
        CHECK_FALSE(f.blocks.empty());
        CHECK(f.unit == 1);
      }
    }
    CHECK(vtables == 3);
    // Every virtual call of the kernels' unit goes to methods of the library.
    const std::vector<bool> taken = addressTaken(m);
    int indirect = 0;
    for (const Function& f : m.functions) {
      if (f.unit != 0) continue;
      for (const CallInfo& c : f.calls) {
        if (!c.indirect) continue;
        ++indirect;
        const std::vector<uint32_t> targets = indirectTargets(m, c, taken);
        CHECK_FALSE(targets.empty());
        for (uint32_t t : targets) CHECK(m.functions[t].unit == 1);
      }
    }
    CHECK(indirect > 0);
    // The back end compiles it; those calls follow the full ABI.
    const backend::CompiledModule cm = backend::compileModule(m);
    for (const Function& f : cm.machine.functions)
      if (f.unit == 0)
        for (const CallInfo& c : f.calls) CHECK_FALSE(c.clobbers_known);
  }
}

// A __constant__ table the library defines and the kernels' unit declares
// (extern __constant__ under -rdc): one symbol, the definition, of its size.
TEST_CASE("link: an extern constant binds to the other unit's table", "[ptx][link]") {
  const std::string dir = std::string(RFSIM_SOURCE_DIR) + "/workloads/raytrace/";
  std::vector<Module> mods;
  mods.push_back(parseFile(dir + "raytrace.ptx"));
  REQUIRE(mods[0].global_symbols.count("cam"));
  CHECK(mods[0].symbols[mods[0].global_symbols.at("cam")].is_extern);
  mods.push_back(parseFile(dir + "lib/raytrace_lib.ptx"));
  const Module m = link(std::move(mods));
  for (const auto& [name, size] : {std::pair<const char*, uint64_t>{"spheres", 128}, {"plane", 20}, {"light", 16},
                                   {"cam", 12}}) {
    INFO(name);
    REQUIRE(m.global_symbols.count(name));
    const Symbol& s = m.symbols[m.global_symbols.at(name)];
    CHECK_FALSE(s.is_extern);
    CHECK(s.space == Space::Const);
    CHECK(s.size == size);
  }
}

// Both units build objects of one class: nvcc -rdc emits the class's vtable
// .weak in each, and one copy is kept, as nvlink keeps one (a strong
// definition beats a weak one; of two weak ones the first stays).
TEST_CASE("link: a weak variable defined in both units keeps one copy", "[ptx][link]") {
  auto unit = [](const std::string& linkage, int first) {
    return std::string(kHeader) + linkage + " .global .align 4 .u32 table[2] = {" + std::to_string(first) + ", 9};\n";
  };
  auto two = [](const std::string& a, const std::string& b) {
    std::vector<Module> mods;
    mods.push_back(parseString(a, "a.ptx"));
    mods.push_back(parseString(b, "b.ptx"));
    return link(std::move(mods));
  };
  auto first = [](const Module& m) {
    const Symbol& s = m.symbols[m.global_symbols.at("table")];
    REQUIRE(s.init.size() == 8);
    return static_cast<int>(s.init[0]);
  };
  CHECK(first(two(unit(".weak", 1), unit(".weak", 2))) == 1);
  CHECK(first(two(unit(".weak", 1), unit(".visible", 2))) == 2);
  CHECK(first(two(unit(".visible", 1), unit(".weak", 2))) == 1);
  const Module w = two(unit(".weak", 1), unit(".weak", 2));
  CHECK(w.symbols[w.global_symbols.at("table")].is_weak);
  CHECK_THROWS_WITH(two(unit(".visible", 1), unit(".visible", 2)), Catch::Contains("variable 'table'"));
}
