// LTRF's register-intervals of every function of a module (Algorithms 1 and
// 2, with the whole-interval check): how many, and how many registers and
// instructions each holds; on a machine program also the prefetches' MRF
// bank conflicts before and after renumbering.
#include "mech/ltrf/cmd_intervals.h"

#include <algorithm>
#include <iostream>

#include <fmt/format.h>

#include "mech/ltrf/intervals.h"
#include "mech/ltrf/renumber.h"
#include "ptx/ir.h"

namespace rfsim::mech::ltrf {

namespace {

void printIntervals(const ptx::Module& m, uint32_t n) {
  std::cout << fmt::format("{:<40} {:>7} {:>7} {:>7} {:>9} {:>10}\n", "function", "instrs", "pass 1", "pass 2",
                           "regs/int", "instrs/int");
  for (const ptx::Function& fn : m.functions) {
    if (fn.is_extern || fn.blocks.empty()) continue;
    const Intervals iv = formIntervals(fn, n, m.machine);
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
  ConflictCount plain, renum;
  uint64_t instrs = 0, prefetches = 0, moved = 0, webs = 0, fixed = 0, off = 0;
  for (const ptx::Function& f : m.functions) {
    if (f.is_extern || f.blocks.empty()) continue;
    const auto c = bankConflicts(f, n, {16, 0});
    plain.intervals += c.intervals, plain.conflict_free += c.conflict_free;
    plain.max_conflicts = std::max(plain.max_conflicts, c.max_conflicts);
    prefetches += c.intervals;
    for (const auto& b : f.blocks) instrs += b.instrs.size();
    ptx::Function copy = f;
    const auto r = renumber(copy, n, {16, 0});
    moved += r.moved, webs += r.webs, fixed += r.fixed, off += r.off_colour;
    const auto d = bankConflicts(copy, n, {16, 0});
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

}  // namespace

std::vector<mech::ModuleAnalysis> intervalAnalyses() {
  using Of = mech::ModuleAnalysis::Of;
  const auto run = [](const ptx::Module& m, uint64_t n) { printIntervals(m, static_cast<uint32_t>(n)); };
  mech::ModuleAnalysis on_ptx{
      Of::Ptx,
      {"--intervals", "LTRF's register-intervals of every function with N registers each (Algorithms 1 and 2)", true,
       1, 256},
      run};
  mech::ModuleAnalysis on_machine{
      Of::MachineProgram,
      {"--intervals", "LTRF's register-intervals of the machine program with N registers each (Algorithms 1 and 2)",
       true, 1, 256},
      run};
  return {on_ptx, on_machine};
}

}  // namespace rfsim::mech::ltrf
