// The back end's driver (backend.h).
#include "backend/backend.h"

#include <algorithm>
#include <chrono>
#include <optional>

#include <fmt/format.h>

#include "backend/frame.h"
#include "backend/lower.h"
#include "backend/prealloc.h"
#include "common/error.h"
#include "ptx/analysis/cfg.h"

namespace rfsim::backend {

namespace mach = ptx::mach;

const FunctionReport* CompiledModule::find(const std::string& name) const {
  for (const auto& f : functions)
    if (f.name == name) return &f;
  return nullptr;
}

namespace {

// The largest loop body (instructions) unrollLoops copies. ptxas' own rule
// is not documented. In its sm_75 cubins of the workloads (docs/backend.md,
// "Loops"), of the kernels with a counted single-block loop that loads, 20 of
// the 21 whose loop has at most 33 PTX instructions have more loads in SASS
// than in PTX (unrolled); of the 9 with loops of 41 to 79, 3 do.
constexpr uint32_t kUnrollMaxBody = 33;

// The register limit of one function: -maxrregcount, .maxnreg, and what
// .maxntid (or .reqntid) with .minnctapersm leave per thread (ptxas' rule: the
// register file shared by that many blocks, rounded down to the allocation
// unit). A function with launch bounds (.maxntid or .reqntid) or .maxnreg
// ignores -maxrregcount, as ptxas and the driver's JIT do: ptxas 13 for sm_90
// keeps lj_force's 34 registers (.maxntid 256) under --maxrregcount 32 and
// 24, and gives 32 without the directive; on an H200, CU_JIT_MAX_REGISTERS 32
// left every kernel with .maxntid at its own count (docs/calibration.md,
// "Occupancy on an H200"), unless compiler.maxrregcount_over_bounds says
// otherwise.
uint32_t registerLimit(const ptx::Function& fn, const CompileOptions& o) {
  const bool bounded = !o.maxrregcount_over_bounds && (fn.maxnreg || fn.maxntid[0] || fn.reqntid[0]);
  uint32_t lim = o.max_regs && !bounded ? std::min<uint32_t>(o.max_regs, 255) : 255;
  if (fn.maxnreg) lim = std::min(lim, fn.maxnreg);
  const uint32_t* ntid = fn.maxntid[0] ? fn.maxntid : fn.reqntid;
  const uint64_t threads = uint64_t{std::max(1u, ntid[0])} * std::max(1u, ntid[1]) * std::max(1u, ntid[2]);
  if (ntid[0] && fn.minnctapersm) {
    const uint64_t warps_threads = (threads + 31) / 32 * 32 * fn.minnctapersm;
    uint64_t per = o.regfile_regs / warps_threads;
    per = per / o.reg_alloc_unit_per_thread * o.reg_alloc_unit_per_thread;
    lim = std::min<uint32_t>(lim, static_cast<uint32_t>(std::max<uint64_t>(per, 16)));
  }
  return lim;
}


// The registers a finished function may change as its callers see them:
// everything its code writes and its calls may change, except the
// callee-saved registers (it restores them), R1 and RZ.
std::vector<uint32_t> clobberSet(const ptx::Function& fn, const mach::Abi& abi) {
  std::vector<bool> w(mach::kNumRegIds, false);
  ptx::Function& f = const_cast<ptx::Function&>(fn);  // forEachSlot hands out references; nothing is written
  for (auto& bb : f.blocks)
    for (auto& in : bb.instrs) {
      forEachSlot(in, f, [&](const Slot& s) {
        if (!s.def || *s.reg >= mach::kNumRegIds) return;
        w[*s.reg] = true;
        if (s.mbits == 64 && *s.reg + 1 < mach::kNumGpr) w[*s.reg + 1] = true;
      });
      if (in.op != ptx::Op::Call || in.call >= f.calls.size()) continue;
      const ptx::CallInfo& c = f.calls[in.call];
      if (c.clobbers_known) {
        for (uint32_t r : c.machine_clobbers) w[r] = true;
      } else {
        for (uint32_t r = 0; r < mach::kNumRegIds; ++r)
          if (abi.clobberedByCall(r)) w[r] = true;
      }
    }
  std::vector<uint32_t> out;
  for (uint32_t r = 0; r < mach::kNumRegIds; ++r)
    if (w[r] && r != mach::kSP && r != mach::kRZ && !abi.calleeSaved(r)) out.push_back(r);
  return out;
}

// Whole-program knowledge at each call of `mf`: when every function the call
// may reach is compiled already, cannot be replaced at link time (not
// .weak) and is of the caller's own translation unit (a module linked from
// another was compiled without knowing it: ptx/link.h), the call changes
// only what those functions change.
void setCallClobbers(MFunction& mf, const ptx::Module& m, const std::vector<bool>& address_taken,
                     const std::vector<std::optional<std::vector<uint32_t>>>& known) {
  for (ptx::CallInfo& c : mf.fn.calls) {
    std::vector<uint32_t> targets;
    if (c.indirect) targets = ptx::indirectTargets(m, c, address_taken);
    else targets.push_back(c.callee);
    if (targets.empty()) continue;
    std::vector<bool> w(mach::kNumRegIds, false);
    bool all = true;
    for (uint32_t t : targets) {
      if (t >= known.size() || !known[t] || m.functions[t].is_weak || m.functions[t].unit != m.functions[mf.index].unit) {
        all = false;
        break;
      }
      for (uint32_t r : *known[t]) w[r] = true;
    }
    if (!all) continue;
    c.clobbers_known = true;
    c.machine_clobbers.clear();
    for (uint32_t r = 0; r < mach::kNumRegIds; ++r)
      if (w[r]) c.machine_clobbers.push_back(r);
  }
}

}  // namespace

uint32_t usedRegisters(const ptx::Function& fn) {
  uint32_t top = mach::kSP;
  ptx::Function& f = const_cast<ptx::Function&>(fn);  // forEachSlot hands out references; nothing is written
  for (auto& bb : f.blocks)
    for (auto& in : bb.instrs)
      forEachSlot(in, f, [&](const Slot& s) {
        if (*s.reg >= mach::kRZ) return;
        top = std::max(top, *s.reg + (s.mbits == 64 ? 1u : 0u));
      });
  return std::min<uint32_t>(top, mach::kRZ - 1) + 1;
}

namespace {

void throwCheck(const ptx::Module& m, const std::string& fn, const std::string& after, const CheckResult& cr) {
  std::string msg = fmt::format("{}: the register allocation of {} fails its check{} ({} errors):", m.file, fn,
                                after, cr.errors.size());
  for (size_t i = 0; i < cr.errors.size() && i < 10; ++i) msg += "\n  " + cr.errors[i];
  throw Error(msg);
}

}  // namespace

CompiledModule compileModule(const ptx::Module& src, const CompileOptions& opt) {
  CompiledModule out;
  out.machine = src;
  ptx::Module& m = out.machine;
  if (opt.variant) {
    out.variant = opt.variant->name;
    for (const ModulePass& p : opt.variant->pre) {
      try {
        p.run(m, opt);
      } catch (const Error& e) {
        throw Error(fmt::format("{}: pass {} (variant {}): {}", m.file, p.name, out.variant, e.what()));
      }
      out.passes.push_back(p.name);
    }
  }
  ptx::buildCfg(m);
  out.callgraph = ptx::buildCallGraph(m);
  const uint32_t nf = static_cast<uint32_t>(m.functions.size());

  // What R1 is aligned to in each function: the most its own frame needs
  // (ownStackAlign) over everything it may call, so a callee whose frame
  // needs 16 finds R1 16-aligned on entry. A kernel's R1 starts at the top
  // of local memory, aligned to more than any of this.
  std::vector<uint32_t> stack_align(nf, 8);
  for (uint32_t fi = 0; fi < nf; ++fi)
    if (!m.functions[fi].is_extern && !m.functions[fi].blocks.empty()) stack_align[fi] = ownStackAlign(m, fi);
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t fi : out.callgraph.bottom_up)
      for (uint32_t c : out.callgraph.callees[fi])
        if (stack_align[c] > stack_align[fi]) {
          stack_align[fi] = stack_align[c];
          changed = true;
        }
  }

  if (opt.vectorize_shared) alignSharedSymbols(m);
  std::vector<int> report_of(nf, -1);
  std::vector<ptx::Function> done(nf);
  std::vector<std::optional<std::vector<uint32_t>>> clobbers(nf);
  const std::vector<bool> address_taken = ptx::addressTaken(m);
  for (uint32_t fi : out.callgraph.bottom_up) {
    const ptx::Function& fn = m.functions[fi];
    if (fn.is_extern || fn.blocks.empty()) continue;
    const auto t0 = std::chrono::steady_clock::now();
    FunctionReport rep;
    rep.name = fn.name;
    rep.index = fi;
    rep.entry = fn.is_entry;
    rep.recursive = out.callgraph.recursive[fi];
    rep.max_regs = registerLimit(fn, opt);
    for (const auto& bb : fn.blocks) rep.instrs_in += static_cast<uint32_t>(bb.instrs.size());

    MFunction mf;
    FinishedFunction ff;
    bool minimize = false;
    // Scheduling spilled: the blocks kept in PTX order, or scheduled under a
    // lower bound than the target.
    bool program_order = false;
    uint32_t bound = opt.schedule_reg_target;
    auto allocateAt = [&](uint32_t sched_target) {
      mf = lowerFunction(m, fi);
      mf.stack_align = stack_align[fi];
      if (opt.param_operands || opt.imm_operands || opt.const_operands)
        foldParamOperands(mf, m, opt.param_operands, opt.imm_operands, opt.const_operands);
      if (opt.expansion_scratch) addExpansionScratch(mf);
      if (opt.fuse_mad) fuseMultiplyAdd(mf);
      if (opt.unroll > 1) unrollLoops(mf, opt.unroll, kUnrollMaxBody);
      if (opt.vectorize_shared) vectorizeSharedLoads(mf, m);
      if (opt.schedule && !program_order) scheduleBlocks(mf, sched_target, opt.schedule_stores_early);
      if (opt.whole_program) setCallClobbers(mf, m, address_taken, clobbers);
      RaOptions ro;
      // The reserved registers are part of the limit (ptxas: -maxrregcount 32
      // leaves R0..R29 to the code).
      ro.max_regs = rep.max_regs - std::min(rep.max_regs, opt.reserved_registers);
      ro.abi = opt.abi();
      ro.is_entry = fn.is_entry;
      ro.reg_banks = opt.reg_banks;
      ro.minimize = minimize;
      rep.ra = allocateRegisters(mf, ro);
      ff = finishFunction(mf, rep.ra, opt.abi());
    };
    // `retry_spills`: a spilling schedule is tried again as below; not under
    // a variant's own register limit (RegDem's targets), whose spills are
    // the variant's subject.
    auto allocate = [&](bool retry_spills) {
      minimize = false;
      program_order = false;
      bound = opt.schedule_reg_target;
      allocateAt(bound);
      const uint32_t target = opt.schedule_reg_target;
      // The highest even schedule bound from half the target up at which
      // ok() holds, by bisection (a few allocations, never more than seven):
      // the allocation is left there (true), or at half the target when ok()
      // does not hold even there (false).
      auto highestBound = [&](auto ok) {
        uint32_t lo = target / 2 & ~1u, hi = target;
        bound = lo;
        allocateAt(bound);
        if (!ok()) return false;
        bool at_lo = true;
        while (hi - lo > 2) {
          bound = (lo + hi) / 2 & ~1u;
          allocateAt(bound);
          at_lo = ok();
          if (at_lo) lo = bound;
          else hi = bound;
        }
        if (!at_lo) {
          bound = lo;
          allocateAt(bound);
        }
        return true;
      };
      // The scheduler hoists loads and starts values early; where that
      // spills, it is tried again under lower bounds (the highest even one
      // from half the target up that does not spill, by bisection) and then
      // in PTX order, and whichever spills least is kept (ptxas schedules
      // for register pressure: a float-key, 64-bit-value sort network of 32
      // items a thread spills 2.6 KB scheduled at the target, and takes 180
      // registers in PTX order, ptxas 183).
      if (retry_spills && opt.schedule && target && mf.spilled_bytes) {
        const uint32_t at_target = mf.spilled_bytes;
        if (!highestBound([&] { return !mf.spilled_bytes; })) {
          // Every bound spills: PTX order, or the schedule at half the target
          // or at the target, whichever spills least.
          const uint32_t at_half = mf.spilled_bytes;
          program_order = true;
          allocateAt(bound);
          if (mf.spilled_bytes >= std::min(at_target, at_half)) {
            program_order = false;
            if (at_half >= at_target) bound = target;
            allocateAt(bound);
          }
        }
      }
      auto count = [&] { return ff.fn.machine_regs + opt.reserved_registers; };
      auto fits = [&] { return count() <= target && !mf.spilled_bytes; };
      // recolour_above: a kernel over it (at most twice the target, without
      // spills), the schedule it has coloured for the fewest registers
      // (lt_laplace3d: 84 -> 64, ptxas 64; lt_aes: 52 -> 43, ptxas 44).
      // Kernels only: a called function's count comes from taking
      // caller-saved registers before callee-saved ones, and fewer would
      // mean saves (ptxas' raytrace `shade`: 108 registers, 2 saves).
      if (fn.is_entry && count() > opt.recolour_above && count() <= 2 * target && !mf.spilled_bytes &&
          count() <= rep.max_regs) {
        minimize = true;
        allocateAt(bound);
      }
      // schedule_fit: a count over the target without spills is scheduled
      // again under lower bounds, the highest even one whose allocation fits
      // in the target found by bisection from half the target (a few
      // allocations, never more than seven); none fits: as it was. Counts
      // over twice the target (sgemm_regtile's 204) are not tried.
      if (!opt.schedule || program_order || bound != target || !target || !opt.schedule_fit ||
          count() <= target || mf.spilled_bytes || count() > rep.max_regs || count() > 2 * target)
        return;
      if (!highestBound(fits)) {
        bound = target;
        allocateAt(bound);
      }
    };
    allocate(true);
    // A variant's own register limit, given the count it got (a variant
    // that spills at its own target: --maxrregcount at it): allocated again.
    if (opt.variant && opt.variant->reg_limit) {
      const uint32_t lim = opt.variant->reg_limit(fn, ff.fn.machine_regs + opt.reserved_registers);
      if (lim && lim < rep.max_regs) {
        const uint32_t was = rep.max_regs;
        rep.max_regs = lim;
        try {
          allocate(false);
        } catch (const Error& e) {
          rep.notes.push_back(fmt::format("variant {}: no allocation within {} registers ({}); kept the one within {}",
                                          opt.variant->name, lim, e.what(), was));
          rep.max_regs = was;
          allocate(true);
        }
      }
    }
    rep.alloc_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    rep.callee_saved = ff.callee_saved;
    // Control codes as the hardware's compiler gives them (depctl.h); the
    // passes below keep them, and what their own instructions lack is added
    // after them.
    if (opt.dep_timing) assignDependencies(ff.fn, opt.dep_timing, DepMode::Assign);

    // The variant's machine passes, each followed by the checker: a pass
    // that loses a value fails here, named. The last pass's check is the
    // function's final one.
    std::optional<CheckResult> checked;
    if (opt.variant && !opt.variant->post.empty()) {
      if (opt.check) {
        const CheckResult cr = checkAllocation(ff.fn, ff.values, opt.abi(), ff.value_names);
        if (!cr.ok()) throwCheck(m, fn.name, "", cr);
      }
      std::vector<const FunctionReport*> finished(nf, nullptr);
      for (const auto& r : out.functions) finished[r.index] = &r;
      MachinePassContext ctx{m, opt, rep, finished, &m};
      for (const FunctionPass& p : opt.variant->post) {
        try {
          p.run(ff.fn, ff.values, ctx);
        } catch (const Error& e) {
          throw Error(fmt::format("{}: pass {} on {} (variant {}): {}", m.file, p.name, fn.name, out.variant,
                                  e.what()));
        }
        ptx::buildCfg(ff.fn);
        // The facts the code decides, recomputed from it (a pass that
        // changes the frame sets fn.machine_frame; one that changes the
        // callee-saved set updates ctx.report.callee_saved, from which FRU
        // and MaxStackDepth follow below).
        ff.fn.machine_regs = usedRegisters(ff.fn);
        ff.frame_bytes = ff.fn.machine_frame;
        countRoles(ff.fn, ff);
        if (opt.check) {
          checked = checkAllocation(ff.fn, ff.values, opt.abi(), ff.value_names);
          if (!checked->ok())
            throwCheck(m, fn.name, fmt::format(" after pass {} (variant {})", p.name, out.variant), *checked);
        }
        if (std::find(out.passes.begin(), out.passes.end(), p.name) == out.passes.end()) out.passes.push_back(p.name);
      }
    }
    if (opt.dep_timing && opt.variant && !opt.variant->post.empty()) {
      const DepResult dr = assignDependencies(ff.fn, opt.dep_timing, DepMode::Repair);
      if (dr.added)
        rep.notes.push_back(fmt::format("dependency control: {} codes added after the passes", dr.added));
    }
    if (opt.check) {
      if (!checked) checked = checkAllocation(ff.fn, ff.values, opt.abi(), ff.value_names);
      rep.checked_uses = checked->uses_checked;
      if (!checked->ok()) throwCheck(m, fn.name, "", *checked);
    }
    rep.regs = std::min<uint32_t>(ff.fn.machine_regs + opt.reserved_registers, 255);
    rep.frame_bytes = ff.frame_bytes;
    rep.spill_bytes = mf.spill_bytes;
    rep.spill_stores = ff.spill_stores;
    rep.spill_loads = ff.spill_loads;
    rep.saves = ff.saves;
    rep.restores = ff.restores;
    rep.spill_store_bytes = ff.spill_store_bytes;
    rep.spill_load_bytes = ff.spill_load_bytes;
    rep.arg_moves = ff.arg_moves;
    for (const auto& bb : ff.fn.blocks) rep.instrs_out += static_cast<uint32_t>(bb.instrs.size());
    rep.fru = fn.is_entry ? rep.regs : static_cast<uint32_t>(rep.callee_saved.size());
    clobbers[fi] = clobberSet(ff.fn, opt.abi());
    done[fi] = std::move(ff.fn);
    report_of[fi] = static_cast<int>(out.functions.size());
    out.functions.push_back(std::move(rep));
  }
  for (uint32_t fi = 0; fi < nf; ++fi)
    if (report_of[fi] >= 0) m.functions[fi] = std::move(done[fi]);
    else m.functions[fi].regs = machineRegisterTable();  // extern declarations and built-ins too
  m.machine = true;

  // Call-graph figures: MaxStackDepth (Kang et al. §III-B) over FRU, and
  // the registers a kernel's launch needs (the most over what it reaches).
  std::vector<uint64_t> fru(nf, 0), regs(nf, 0);
  for (const auto& r : out.functions) {
    fru[r.index] = r.fru;
    regs[r.index] = r.regs;
  }
  const std::vector<uint64_t> depth = ptx::maxPathWeight(out.callgraph, fru);
  for (auto& r : out.functions) {
    r.max_stack_depth = depth[r.index];
    // Reachable set from r.index.
    std::vector<bool> seen(nf, false);
    std::vector<uint32_t> work{r.index};
    seen[r.index] = true;
    uint64_t most = 0;
    while (!work.empty()) {
      const uint32_t f = work.back();
      work.pop_back();
      most = std::max(most, regs[f]);
      for (uint32_t c : out.callgraph.callees[f])
        if (!seen[c]) seen[c] = true, work.push_back(c);
    }
    r.tree_regs = static_cast<uint32_t>(most);
  }
  // Report in module order.
  std::sort(out.functions.begin(), out.functions.end(),
            [](const FunctionReport& a, const FunctionReport& b) { return a.index < b.index; });
  return out;
}

}  // namespace rfsim::backend
