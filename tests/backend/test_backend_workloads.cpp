// Every function of every workload goes through the whole back end with the
// value-following checker on (compileModule throws on any error it finds),
// at the default register limit and at tight ones that force spills.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "backend/backend.h"
#include "ptx/parser.h"

using namespace rfsim;

namespace {

// Every module: a workload's kernels' units and the separately compiled
// units of its lib/ folder, each on its own (a call into another unit
// follows the full ABI whether or not it is linked).
std::vector<std::filesystem::path> workloadPtx() {
  std::vector<std::filesystem::path> out;
  for (const auto& d : std::filesystem::directory_iterator(std::filesystem::path(RFSIM_SOURCE_DIR) / "workloads"))
    if (d.is_directory())
      for (const auto& dir : {d.path(), d.path() / "lib"})
        if (std::filesystem::is_directory(dir))
          for (const auto& f : std::filesystem::directory_iterator(dir))
            if (f.path().extension() == ".ptx") out.push_back(f.path());
  std::sort(out.begin(), out.end());
  return out;
}

// Every module of `files` at the default limit and at 64, 32 and 24.
void compileAll(const std::vector<std::filesystem::path>& files) {
  for (const auto& f : files) {
    const ptx::Module m = ptx::parseFile(f);
    for (uint32_t limit : {0u, 64u, 32u, 24u}) {
      // r2_lud at 32 registers: the checker's meet swaps a register between a
      // value and a conflict around r2_lud_perimeter's loops until its
      // widening settles it (check.cpp, solve).
      INFO(f.filename().string() << " at maxrregcount " << limit);
      backend::CompileOptions o;
      o.max_regs = limit;
      o.maxrregcount_over_bounds = true;  // kernels with launch bounds too, which ptxas would exempt
      backend::CompiledModule cm;
      REQUIRE_NOTHROW(cm = backend::compileModule(m, o));
      CHECK(cm.machine.machine);
      for (const auto& r : cm.functions) {
        INFO(r.name);
        CHECK(r.regs <= (limit ? limit : 255u));
        CHECK(r.regs >= 2);
        CHECK(r.checked_uses > 0);
        CHECK(r.saves == r.callee_saved.size());
        if (!r.entry) CHECK(r.fru == r.callee_saved.size());
        CHECK(r.max_stack_depth >= r.fru);
      }
    }
  }
}

// The workloads whose folder name starts with `prefix` (or all the others).
std::vector<std::filesystem::path> workloadPtx(const std::string& prefix, bool with) {
  std::vector<std::filesystem::path> out;
  for (const auto& f : workloadPtx()) {
    const std::string dir = f.parent_path().filename() == "lib" ? f.parent_path().parent_path().filename().string()
                                                                 : f.parent_path().filename().string();
    if ((dir.rfind(prefix, 0) == 0) == with) out.push_back(f);
  }
  return out;
}

}  // namespace

TEST_CASE("back end: every workload allocates and passes the checker at 255, 64, 32 and 24 registers",
          "[backend][workloads]") {
  const auto files = workloadPtx("r2_", false);
  REQUIRE(files.size() >= 19);
  compileAll(files);
}

TEST_CASE("back end: every workload of the R2D2 suite allocates and passes the checker at 255, 64, 32 and 24 "
          "registers",
          "[backend][workloads]") {
  const auto files = workloadPtx("r2_", true);
  REQUIRE(files.size() >= 28);
  compileAll(files);
}
