// The back end's pass pipeline (backend/passes.h): a variant's PTX-IR and
// machine passes run in order, the value-following checker runs after every
// machine pass and names the pass that lost a value, and the derived facts
// (registers, tree registers, role counts) follow the changed code.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "backend/backend.h"
#include "backend/mfunction.h"
#include "common/error.h"
#include "config/config_io.h"
#include "mech/mechanism.h"
#include "ptx/analysis/printer.h"
#include "ptx/parser.h"

using namespace rfsim;
using Catch::Matchers::Contains;

namespace {

namespace mach = ptx::mach;

ptx::Module workload(const std::string& name) {
  return ptx::parseFile(std::filesystem::path(RFSIM_SOURCE_DIR) / "workloads" / name / (name + ".ptx"));
}

// The toy mechanism's variant, as its configuration makes it.
backend::Variant toyVariant(bool break_pass) {
  config::GpuConfig c = config::loadConfig(std::string(RFSIM_SOURCE_DIR) + "/configs/v100.yaml");
  mech::select(c, "toy");
  config::applyOverride(c, std::string("mechanisms.toy.break_pass=") + (break_pass ? "true" : "false"));
  auto ms = mech::instantiate(c);
  REQUIRE(ms.size() == 1);
  auto vs = ms[0]->variants();
  REQUIRE(vs.size() == 1);
  return vs[0];
}

// Moves every slot naming R2 or R3 to R`to` / R`to`+1 (and back): the same
// values in other registers, consistently.
void movePair(ptx::Function& fn, uint32_t to) {
  for (auto& bb : fn.blocks)
    for (auto& in : bb.instrs)
      backend::forEachSlot(in, fn, [&](const backend::Slot& s) {
        uint32_t& r = *s.reg;
        if (r == 2 || r == 3) r = r - 2 + to;
        else if (r == to || r == to + 1) r = r - to + 2;
      });
}

}  // namespace

TEST_CASE("passes: a consistent register swap passes the checker and is recorded", "[backend][passes]") {
  const backend::Variant v = toyVariant(false);
  backend::CompileOptions co;
  const backend::CompiledModule base = backend::compileModule(workload("sgemm"), co);
  co.variant = &v;
  const backend::CompiledModule toy = backend::compileModule(workload("sgemm"), co);
  CHECK(base.variant == "base");
  CHECK(base.passes.empty());
  CHECK(toy.variant == "toy");
  REQUIRE(toy.passes == std::vector<std::string>{"toy.swap_pairs"});
  // Same register counts, different code: the pass really moved registers.
  REQUIRE(toy.functions.size() == base.functions.size());
  CHECK(toy.functions[0].regs == base.functions[0].regs);
  CHECK(toy.functions[0].checked_uses == base.functions[0].checked_uses);
  CHECK(ptx::printModule(toy.machine) != ptx::printModule(base.machine));
}

TEST_CASE("passes: a pass that loses a value fails the compilation, naming the pass and the variant",
          "[backend][passes]") {
  const backend::Variant v = toyVariant(true);
  backend::CompileOptions co;
  co.variant = &v;
  CHECK_THROWS_WITH(backend::compileModule(workload("saxpy"), co),
                    Contains("after pass toy.break_value") && Contains("variant toy") && Contains("saxpy"));
  // Without the checker the broken code would compile: the check is what stops it.
  co.check = false;
  CHECK_NOTHROW(backend::compileModule(workload("saxpy"), co));
}

TEST_CASE("passes: registers per thread and tree registers are recomputed after a machine pass",
          "[backend][passes]") {
  backend::Variant v;
  v.name = "high";
  v.description = "R2:R3 moved to R60:R61";
  v.post.push_back({"test.move_pair", [](ptx::Function& fn, backend::SlotValues&, const backend::MachinePassContext&) {
                      if (fn.is_entry) movePair(fn, 60);
                    }});
  backend::CompileOptions co;
  const backend::CompiledModule base = backend::compileModule(workload("saxpy"), co);
  co.variant = &v;
  const backend::CompiledModule high = backend::compileModule(workload("saxpy"), co);
  REQUIRE(base.functions[0].regs < 60);
  // R61 the highest: 62, and the two registers ptxas reserves (CompileOptions::reserved_registers).
  CHECK(high.functions[0].regs == 62 + co.reserved_registers);
  CHECK(high.functions[0].tree_regs == 62 + co.reserved_registers);
  CHECK(high.functions[0].fru == 62 + co.reserved_registers);
  CHECK(high.passes == std::vector<std::string>{"test.move_pair"});
}

TEST_CASE("passes: PTX-IR passes run before allocation, an error names the pass", "[backend][passes]") {
  int ran = 0;
  backend::Variant v;
  v.name = "pre";
  v.pre.push_back({"test.count", [&](ptx::Module& m, const backend::CompileOptions&) { ran += int(m.functions.size()); }});
  backend::CompileOptions co;
  co.variant = &v;
  const backend::CompiledModule cm = backend::compileModule(workload("saxpy"), co);
  CHECK(ran == int(cm.machine.functions.size()));
  CHECK(cm.passes == std::vector<std::string>{"test.count"});

  v.pre.push_back({"test.refuse", [](ptx::Module&, const backend::CompileOptions&) {
                     throw Error("this kernel has no linear blocks");
                   }});
  CHECK_THROWS_WITH(backend::compileModule(workload("saxpy"), co),
                    Contains("pass test.refuse") && Contains("variant pre") && Contains("no linear blocks"));
}
