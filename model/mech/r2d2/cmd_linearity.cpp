// R2D2's code analysis of every kernel of a PTX module (section 3.1): the
// linear definitions, how Algorithm 1 treats each, the linear combinations
// non-linear code reads (the register table holds 16), and what the
// transformation makes of each kernel.
#include "mech/r2d2/cmd_linearity.h"

#include <iostream>
#include <map>
#include <string>

#include <fmt/format.h>

#include "mech/r2d2/linearity.h"
#include "mech/r2d2/transform.h"
#include "ptx/ir.h"

namespace rfsim::mech::r2d2 {

namespace {

void printLinearity(const ptx::Module& m) {
  for (const ptx::Function& fn : m.functions) {
    if (!fn.is_entry || fn.blocks.empty()) continue;
    const Linearity l = analyzeLinearity(m, fn);
    std::map<std::string, int> kinds;
    for (const auto& d : l.defs) ++kinds[defKindName(d.kind)];
    std::string ks;
    for (const auto& [k, n] : kinds) ks += fmt::format("{}{} {}", ks.empty() ? "" : ", ", n, k);
    // Scalar combinations are coefficients alone; the others need a linear
    // register, and the register table has 16.
    size_t indexed = 0;
    for (const auto& c : l.combinations) indexed += !c.scalar();
    std::cout << fmt::format("{}: {} instructions, {} linear ({:.0f} %){}; {} linear combinations read by "
                             "non-linear code, {} with an index part{}\n",
                             fn.name, l.instructions, l.linear_instructions,
                             l.instructions ? 100.0 * double(l.linear_instructions) / double(l.instructions) : 0.0,
                             ks.empty() ? "" : " (" + ks + ")", l.combinations.size(), indexed,
                             indexed > 16 ? " (more than the register table's 16)" : "");
    for (const auto& c : l.combinations) {
      const char* part = c.hasThreadPart() ? (c.hasBlockPart() ? "thread+block" : "thread")
                                           : (c.hasBlockPart() ? "block" : "scalar");
      std::cout << fmt::format("  {:<13} {}{}\n", part, l.vecStr(c), c.narrow ? "  (32-bit arithmetic)" : "");
    }
  }
  // What the transformation (Algorithm 1) makes of each kernel.
  ptx::Module t = m;
  PlanTable plans;
  transformModule(t, plans);
  for (const auto& [name, p] : plans) {
    if (!p.transformed) {
      std::cout << fmt::format("{}: keeps its code: {}\n", name, p.reason);
      continue;
    }
    std::cout << fmt::format("{}: transformed: {} linear registers, {} thread-index registers, {} coefficients; "
                             "{} instructions removed, {} reads replaced ({} adding a coefficient, {} a uniform "
                             "offset of {} loop updates), {} divergent definitions moved, {} left; {} added in "
                             "the three blocks\n",
                             name, p.lrs.size(), p.trs.size(), p.coefficients, p.removed, p.uses_replaced,
                             p.uses_with_coefficient, p.uniform_uses, p.loops, p.divergent_moves, p.uses_left,
                             p.added);
  }
}

}  // namespace

mech::ModuleAnalysis linearityAnalysis() {
  return {mech::ModuleAnalysis::Of::Ptx,
          {"--linearity", "R2D2's analysis of every kernel: linear instructions and the linear combinations of the "
                          "thread and block indices that non-linear code reads",
           false, 0, 0, ""},
          [](const ptx::Module& m, uint64_t) { printLinearity(m); }};
}

}  // namespace rfsim::mech::r2d2
