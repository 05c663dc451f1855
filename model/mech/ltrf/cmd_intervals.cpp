// LTRF's register-intervals of every function of a module (Algorithms 1 and
// 2, with the whole-interval check): how many, and how many registers and
// instructions each holds; on a machine program also the prefetches' MRF
// bank conflicts before and after renumbering. As text, or as JSON
// (rfsim backend --json FILE).
#include "mech/ltrf/cmd_intervals.h"

#include <algorithm>
#include <iostream>

#include <fmt/format.h>

#include "mech/ltrf/intervals.h"
#include "mech/ltrf/renumber.h"
#include "ptx/ir.h"

namespace rfsim::mech::ltrf {

namespace {

double pct(uint64_t a, uint64_t b) { return b ? 100.0 * double(a) / double(b) : 0.0; }

void addConflicts(PrefetchConflicts& sum, const ConflictCount& c) {
  sum.prefetches += c.intervals;
  sum.conflict_free += c.conflict_free;
  sum.max_conflicts = std::max(sum.max_conflicts, c.max_conflicts);
}

void printReport(const IntervalReport& r) {
  std::cout << fmt::format("{:<40} {:>7} {:>7} {:>7} {:>9} {:>10}\n", "function", "instrs", "pass 1", "pass 2",
                           "regs/int", "instrs/int");
  for (const FunctionIntervals& f : r.functions) {
    const double k = double(f.pass2);
    std::cout << fmt::format("{:<40} {:>7} {:>7} {:>7} {:>9.1f} {:>10.1f}\n", f.name, f.instrs, f.pass1, f.pass2,
                             k ? double(f.regs) / k : 0.0, k ? double(f.instrs) / k : 0.0);
  }
  std::cout << fmt::format("N = {} registers per interval ({})\n", r.n,
                           r.machine ? "the machine program's registers" : "PTX virtual registers, before allocation");
  if (!r.machine) return;
  const PrefetchConflicts &p = r.plain, &q = r.renumbered;
  std::cout << fmt::format("prefetches (intervals naming registers): {}; without a bank conflict (16 banks): {:.1f} %, "
                           "at most {} conflicts\n",
                           p.prefetches, pct(p.conflict_free, p.prefetches), p.max_conflicts);
  std::cout << fmt::format("renumbered (LTRFconf; {} live ranges: {} fixed, {} moved, {} found no free register of "
                           "their bank): {} prefetches, {:.1f} % without a conflict, at most {}\n",
                           r.webs, r.fixed, r.moved, r.off_colour, q.prefetches, pct(q.conflict_free, q.prefetches),
                           q.max_conflicts);
  std::cout << fmt::format("code: {} instructions; prefetch instructions +{:.1f} %; their 256-bit sets as 8-byte words "
                           "+{:.1f} % (Maxwell's 8-byte instructions)\n",
                           r.instrs, pct(p.prefetches, r.instrs), pct(4 * p.prefetches, r.instrs));
}

nlohmann::json toJson(const PrefetchConflicts& c) {
  return {{"prefetches", c.prefetches}, {"conflict_free", c.conflict_free}, {"max_conflicts", c.max_conflicts}};
}

}  // namespace

IntervalReport intervalReport(const ptx::Module& m, uint32_t n) {
  IntervalReport r;
  r.n = n;
  r.machine = m.machine;
  for (const ptx::Function& fn : m.functions) {
    if (fn.is_extern || fn.blocks.empty()) continue;
    const Intervals iv = formIntervals(fn, n, m.machine);
    FunctionIntervals& f = r.functions.emplace_back();
    f.name = fn.name;
    for (const auto& s : iv.segments) f.instrs += s.end - s.begin;
    for (const auto& i : iv.intervals) f.regs += i.regs.count();
    f.pass1 = iv.pass1_intervals;
    f.pass2 = static_cast<uint32_t>(iv.intervals.size());
  }
  if (!m.machine) return r;
  // The prefetches' MRF bank conflicts (16 banks: register mod 16, as the
  // MRF model maps a warp's registers), before and after renumbering
  // (LTRFconf, the paper's Fig. 16), and the code the prefetches add.
  for (const ptx::Function& f : m.functions) {
    if (f.is_extern || f.blocks.empty()) continue;
    addConflicts(r.plain, bankConflicts(f, n, {16, 0}));
    for (const auto& b : f.blocks) r.instrs += b.instrs.size();
    ptx::Function copy = f;
    const auto rn = renumber(copy, n, {16, 0});
    r.moved += rn.moved, r.webs += rn.webs, r.fixed += rn.fixed, r.off_colour += rn.off_colour;
    addConflicts(r.renumbered, bankConflicts(copy, n, {16, 0}));
  }
  return r;
}

nlohmann::json toJson(const IntervalReport& r) {
  nlohmann::json fns = nlohmann::json::array();
  for (const FunctionIntervals& f : r.functions)
    fns.push_back({{"name", f.name},
                   {"instrs", f.instrs},
                   {"pass1_intervals", f.pass1},
                   {"intervals", f.pass2},
                   {"interval_regs", f.regs}});
  nlohmann::json j = {{"registers_per_interval", r.n},
                      {"registers", r.machine ? "machine" : "virtual"},
                      {"functions", fns}};
  if (r.machine) {
    j["banks"] = 16;
    j["plain"] = toJson(r.plain);
    j["renumbered"] = toJson(r.renumbered);
    j["renumbered"]["live_ranges"] = r.webs;
    j["renumbered"]["fixed"] = r.fixed;
    j["renumbered"]["moved"] = r.moved;
    j["renumbered"]["off_colour"] = r.off_colour;
    j["instrs"] = r.instrs;
  }
  return j;
}

std::vector<mech::ModuleAnalysis> intervalAnalyses() {
  using Of = mech::ModuleAnalysis::Of;
  const auto run = [](const ptx::Module& m, uint64_t n) { printReport(intervalReport(m, static_cast<uint32_t>(n))); };
  const auto json = [](const ptx::Module& m, uint64_t n) { return toJson(intervalReport(m, static_cast<uint32_t>(n))); };
  mech::ModuleAnalysis on_ptx{
      Of::Ptx,
      {"--intervals", "LTRF's register-intervals of every function with N registers each (Algorithms 1 and 2)", true,
       1, 256, ""},
      run, json};
  mech::ModuleAnalysis on_machine{
      Of::MachineProgram,
      {"--intervals", "LTRF's register-intervals of the machine program with N registers each (Algorithms 1 and 2)",
       true, 1, 256, ""},
      run, json};
  return {on_ptx, on_machine};
}

}  // namespace rfsim::mech::ltrf
