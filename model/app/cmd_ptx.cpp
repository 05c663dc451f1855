// `rfsim ptx FILE`: the front end on its own. Parses a PTX file, builds the
// CFG and its analyses, and prints the IR back as text (with per-block
// predecessors, successors, dominators, post-dominators and loop depth when
// asked), a summary of functions, blocks, loops and the call graph, or R2D2's
// linearity analysis of every kernel (mech/r2d2/linearity.h).
#include <iostream>
#include <map>
#include <string>

#include <fmt/format.h>

#include "app/commands.h"
#include "mech/ltrf/intervals.h"
#include "mech/ltrf/renumber.h"
#include "mech/r2d2/linearity.h"
#include "mech/r2d2/transform.h"
#include "ptx/analysis/callgraph.h"
#include "ptx/analysis/cfg.h"
#include "ptx/analysis/loops.h"
#include "ptx/analysis/printer.h"
#include "ptx/parser.h"

namespace rfsim::app {

void printIntervals(const ptx::Module& m, uint32_t n) {
  // LTRF's register-intervals (Algorithms 1 and 2, with the whole-interval
  // check): how many, and how many registers and instructions each holds.
  std::cout << fmt::format("{:<40} {:>7} {:>7} {:>7} {:>9} {:>10}\n", "function", "instrs", "pass 1", "pass 2",
                           "regs/int", "instrs/int");
  for (const ptx::Function& fn : m.functions) {
    if (fn.is_extern || fn.blocks.empty()) continue;
    const mech::ltrf::Intervals iv = mech::ltrf::formIntervals(fn, n, m.machine);
    uint64_t instrs = 0, regs = 0;
    for (const auto& s : iv.segments) instrs += s.end - s.begin;
    for (const auto& i : iv.intervals) regs += i.regs.count();
    const double k = double(iv.intervals.size());
    std::cout << fmt::format("{:<40} {:>7} {:>7} {:>7} {:>9.1f} {:>10.1f}\n", fn.name, instrs, iv.pass1_intervals,
                             iv.intervals.size(), k ? double(regs) / k : 0.0, k ? double(instrs) / k : 0.0);
  }
  std::cout << fmt::format("N = {} registers per interval ({})\n", n,
                           m.machine ? "the machine program's registers" : "PTX virtual registers, before allocation");
  if (!m.machine) return;
  // The prefetches' MRF bank conflicts (16 banks: register mod 16, as the
  // MRF model maps a warp's registers), before and after renumbering
  // (LTRFconf, the paper's Fig. 16), and the code the prefetches add.
  mech::ltrf::ConflictCount plain, renum;
  uint64_t instrs = 0, prefetches = 0, moved = 0, webs = 0, fixed = 0, off = 0;
  for (const ptx::Function& f : m.functions) {
    if (f.is_extern || f.blocks.empty()) continue;
    const auto c = mech::ltrf::bankConflicts(f, n, {16, 0});
    plain.intervals += c.intervals, plain.conflict_free += c.conflict_free;
    plain.max_conflicts = std::max(plain.max_conflicts, c.max_conflicts);
    prefetches += c.intervals;
    for (const auto& b : f.blocks) instrs += b.instrs.size();
    ptx::Function copy = f;
    const auto r = mech::ltrf::renumber(copy, n, {16, 0});
    moved += r.moved, webs += r.webs, fixed += r.fixed, off += r.off_colour;
    const auto d = mech::ltrf::bankConflicts(copy, n, {16, 0});
    renum.intervals += d.intervals, renum.conflict_free += d.conflict_free;
    renum.max_conflicts = std::max(renum.max_conflicts, d.max_conflicts);
  }
  auto pct = [](uint64_t a, uint64_t b) { return b ? 100.0 * double(a) / double(b) : 0.0; };
  std::cout << fmt::format("prefetches (intervals naming registers): {}; without a bank conflict (16 banks): {:.1f} %, "
                           "at most {} conflicts\n",
                           plain.intervals, pct(plain.conflict_free, plain.intervals), plain.max_conflicts);
  std::cout << fmt::format("renumbered (LTRFconf; {} live ranges: {} fixed, {} moved, {} found no free register of "
                           "their bank): {} prefetches, {:.1f} % without a conflict, at most {}\n",
                           webs, fixed, moved, off, renum.intervals, pct(renum.conflict_free, renum.intervals),
                           renum.max_conflicts);
  std::cout << fmt::format("code: {} instructions; prefetch instructions +{:.1f} %; their 256-bit sets as 8-byte words "
                           "+{:.1f} % (Maxwell's 8-byte instructions)\n",
                           instrs, pct(prefetches, instrs), pct(4 * prefetches, instrs));
}

int ptxCommand(const PtxOptions& o) {
  ptx::Module m = ptx::parseFile(o.file);
  ptx::buildCfg(m);
  if (o.print || o.annotate) {
    ptx::PrintOptions po;
    po.annotate = o.annotate;
    std::cout << ptx::printModule(m, po);
    return 0;
  }

  if (o.linearity) {
    // R2D2's code analysis (section 3.1): the linear definitions, how
    // Algorithm 1 treats each, and the linear combinations non-linear code
    // reads (the register table holds 16).
    for (const ptx::Function& fn : m.functions) {
      if (!fn.is_entry || fn.blocks.empty()) continue;
      const mech::r2d2::Linearity l = mech::r2d2::analyzeLinearity(m, fn);
      std::map<std::string, int> kinds;
      for (const auto& d : l.defs) ++kinds[mech::r2d2::defKindName(d.kind)];
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
    mech::r2d2::PlanTable plans;
    mech::r2d2::transformModule(t, plans);
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
    return 0;
  }

  if (o.intervals > 0) {
    printIntervals(m, o.intervals);
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
