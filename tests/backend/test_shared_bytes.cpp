// A kernel's static shared memory (the variables its code reaches, laid out
// as ptx/analysis/shared_layout.h does) against ptxas' "bytes smem" for every
// kernel of the committed PTX that has a ptxas -v report beside it.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "backend/ptxas_report.h"
#include "backend/report.h"
#include "ptx/analysis/callgraph.h"
#include "ptx/parser.h"

using namespace rfsim;

TEST_CASE("static shared memory per kernel is ptxas' bytes smem on every committed kernel", "[backend][shared]") {
  namespace fs = std::filesystem;
  size_t kernels = 0, with_shared = 0;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(RFSIM_SOURCE_DIR) / "workloads")) {
    const fs::path& ptx = e.path();
    if (ptx.extension() != ".ptx" || ptx.stem().extension() == ".inlined") continue;
    fs::path rep = ptx;
    rep.replace_extension(".ptxas.txt");
    if (!fs::exists(rep)) continue;
    const ptx::Module m = ptx::parseFile(ptx);
    const ptx::CallGraph cg = ptx::buildCallGraph(m);
    const backend::PtxasReport r = backend::readPtxasReport(rep);
    for (uint32_t f = 0; f < m.functions.size(); ++f) {
      if (!m.functions[f].is_entry) continue;
      const backend::PtxasFunction* pf = r.find(m.functions[f].name);
      if (!pf) continue;
      INFO(ptx.string() << ": " << m.functions[f].name);
      CHECK(backend::staticSharedBytes(m, cg, f) == pf->shared);
      ++kernels;
      with_shared += pf->shared > 0;
    }
  }
  CHECK(kernels > 100);
  CHECK(with_shared > 20);
}
