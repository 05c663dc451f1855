// `rfsim ptx FILE`: the front end on its own. Parses a PTX file, builds the
// CFG and its analyses, and prints the IR back as text (with per-block
// predecessors, successors, dominators, post-dominators and loop depth when
// asked), a summary of functions, blocks, loops and the call graph, or the
// analyses of the module that the mechanisms add (mech/commands.h).
#include <iostream>
#include <string>

#include <fmt/format.h>

#include "app/commands.h"
#include "ptx/analysis/callgraph.h"
#include "ptx/analysis/cfg.h"
#include "ptx/analysis/loops.h"
#include "ptx/analysis/printer.h"
#include "ptx/parser.h"

namespace rfsim::app {

int ptxCommand(const PtxOptions& o) {
  ptx::Module m = ptx::parseFile(o.file);
  ptx::buildCfg(m);
  if (o.print || o.annotate) {
    ptx::PrintOptions po;
    po.annotate = o.annotate;
    std::cout << ptx::printModule(m, po);
    return 0;
  }

  if (!o.analyses.empty()) {
    for (const AnalysisRun& a : o.analyses) a.analysis->run(m, a.value);
    return 0;
  }

  const ptx::CallGraph cg = ptx::buildCallGraph(m);
  std::cout << fmt::format("{}: PTX {}.{}, target {}, {} functions, {} module symbols\n", o.file, m.version_major,
                           m.version_minor, m.target, m.functions.size(), m.symbols.size());
  std::cout << fmt::format("{:<40} {:>6} {:>7} {:>7} {:>6} {:>6}  {}\n", "function", "kind", "blocks", "instrs",
                           "regs", "loops", "calls");
  for (uint32_t f = 0; f < m.functions.size(); ++f) {
    const ptx::Function& fn = m.functions[f];
    size_t instrs = 0;
    for (const auto& b : fn.blocks) instrs += b.instrs.size();
    const size_t loops = fn.blocks.empty() ? 0 : ptx::findLoops(fn).loops.size();
    std::string callees;
    for (uint32_t c : cg.callees[f]) callees += (callees.empty() ? "" : ", ") + m.functions[c].name;
    const char* kind = fn.is_entry ? "entry" : fn.is_extern ? "extern" : "func";
    std::cout << fmt::format("{:<40} {:>6} {:>7} {:>7} {:>6} {:>6}  {}{}\n", fn.name, kind, fn.blocks.size(), instrs,
                             fn.regs.size(), loops, callees, cg.recursive[f] ? " (recursive)" : "");
  }
  return 0;
}

}  // namespace rfsim::app
