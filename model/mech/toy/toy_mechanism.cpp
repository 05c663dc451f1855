#include "mech/toy/toy_mechanism.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "backend/backend.h"
#include "backend/mfunction.h"
#include "common/error.h"
#include "sm/core/sm.h"
#include "sm/opcoll/banked_array.h"

namespace rfsim::toy {

namespace {

namespace mach = ptx::mach;

bool hasCalls(const ptx::Function& fn) {
  for (const auto& bb : fn.blocks)
    for (const auto& in : bb.instrs)
      if (in.op == ptx::Op::Call) return true;
  return false;
}

// toy.swap_pairs: R2:R3 <-> the highest even pair below the function's
// register count, in every register slot of a kernel without calls (a
// kernel has no caller whose convention it must keep, and without calls
// no callee's). The expected values (SlotValues) stay as they are: the
// same value now lives in the other register, everywhere.
void swapPairs(ptx::Function& fn, backend::SlotValues&, const backend::MachinePassContext&) {
  if (!fn.is_entry || hasCalls(fn) || fn.machine_regs < 6) return;
  const uint32_t a = 2, b = (fn.machine_regs - 2) & ~1u;
  if (b <= a + 1) return;
  auto swap = [&](uint32_t r) -> uint32_t {
    if (r == a || r == a + 1) return r - a + b;
    if (r == b || r == b + 1) return r - b + a;
    return r;
  };
  for (auto& bb : fn.blocks)
    for (auto& in : bb.instrs)
      backend::forEachSlot(in, fn, [&](const backend::Slot& s) {
        if (*s.reg < mach::kRZ) *s.reg = swap(*s.reg);
      });
}

// toy.break_value: the first read of a general register above R1 in a
// kernel reads its neighbour instead -- a lost value the checker must see.
void breakValue(ptx::Function& fn, backend::SlotValues&, const backend::MachinePassContext&) {
  if (!fn.is_entry) return;
  for (auto& bb : fn.blocks)
    for (auto& in : bb.instrs) {
      bool done = false;
      backend::forEachSlot(in, fn, [&](const backend::Slot& s) {
        if (done || s.def || *s.reg < 2 || *s.reg >= mach::kRZ || s.mbits == 64) return;
        *s.reg = *s.reg ^ 1u;
        done = true;
      });
      if (done) return;
    }
}

// toy.mark_calls: `mark <registers the function uses>` (the toy's
// instruction, an immediate operand) before every call, and the call tagged
// with toy.tag = 1. The mark reads and writes no register, so its slot list (SlotValues) is empty.
void markCalls(ptx::Function& fn, backend::SlotValues& values, const backend::MachinePassContext&) {
  uint16_t mark = 0;
  if (!ptx::findExtOp("toy.mark", &mark)) throw Error("toy.mark_calls: the toy's instruction is not registered");
  const ptx::ControlField tag = ptx::registerControlField("toy.tag", 2);
  for (size_t b = 0; b < fn.blocks.size(); ++b) {
    auto& code = fn.blocks[b].instrs;
    for (size_t i = 0; i < code.size(); ++i) {
      if (code[i].op != ptx::Op::Call) continue;
      tag.set(code[i], 1);
      ptx::Instr m = ptx::makeExtInstr(mark, {fn.machine_regs});
      m.loc = code[i].loc;
      code.insert(code.begin() + static_cast<std::ptrdiff_t>(i), m);
      values[b].insert(values[b].begin() + static_cast<std::ptrdiff_t>(i), std::vector<uint32_t>{});
      ++i;  // past the call
    }
  }
}

// toy.park_pair: R2:R3 -> UR0:UR1 (the toy's register class) in every
// register slot of a kernel without calls. The expected values stay: the
// same value now lives in the class register.
void parkPair(ptx::Function& fn, backend::SlotValues&, const backend::MachinePassContext&) {
  if (!fn.is_entry || hasCalls(fn)) return;
  const uint32_t ur0 = ptx::extReg("toy.ur", 0);
  for (auto& bb : fn.blocks)
    for (auto& in : bb.instrs)
      backend::forEachSlot(in, fn, [&](const backend::Slot& s) {
        if (*s.reg == 2 || *s.reg == 3) *s.reg = ur0 + (*s.reg - 2);
      });
}

// The toy's register translator (park_rows): general registers at the
// baseline's rows (the base the SM gave the warp + the register), the
// toy.ur registers of warp slot w at rf_rows + 4w + n (all at rf_rows + n
// with `shared`).
class ParkTranslator final : public sm::RegTranslator {
 public:
  ParkTranslator(sm::Sm& sm, uint32_t rf_rows, bool shared) : sm_(sm), rf_rows_(rf_rows), shared_(shared) {
    const ptx::ExtRegClassDesc* c = ptx::findExtRegClass("toy.ur");
    if (!c) throw Error("toy: register class toy.ur is not registered");
    first_ = c->first;
    count_ = c->count;
  }
  uint32_t translate(uint32_t warp, uint32_t reg) override {
    ++translations;
    if (reg >= first_ && reg < first_ + count_) return rf_rows_ + (shared_ ? 0 : warp * count_) + (reg - first_);
    return sm_.warpBase(warp) + reg;
  }
  // Translation changes no state of its own: idle-cycle skipping stays on.
  uint64_t nextEventCycle(uint64_t) const override { return UINT64_MAX; }
  uint32_t rows(uint32_t warps) const { return rf_rows_ + warps * count_; }
  uint64_t translations = 0;

 private:
  sm::Sm& sm_;
  uint32_t rf_rows_, first_ = 0, count_ = 0;
  bool shared_;
};

struct ToyStats : stats::Group {
  explicit ToyStats(stats::Group* parent)
      : Group(parent, "toy", "the toy mechanism (an example plug-in)"),
        ADD_STAT(gate_checks, stats::unit::Count, "flagged warp instructions the gate was asked about (warp-cycles)"),
        ADD_STAT(gated_issues, stats::unit::Count, "flagged warp instructions issued (bra, call, ret, exit)"),
        ADD_STAT(warps_launched, stats::unit::Count, "warps the launch hook saw"),
        ADD_STAT(marks_issued, stats::unit::Count, "the toy's `mark` instructions issued (ISA extension)"),
        ADD_STAT(traps, stats::unit::Count, "traps (spills before a call, fills after its frame)"),
        ADD_STAT(trap_ops_done, stats::unit::Count, "trap operations completed"),
        ADD_STAT(activations, stats::unit::Count, "warps held by the activation hook"),
        ADD_STAT(deactivations, stats::unit::Count, "deactivations the activation hook heard of"),
        ADD_STAT(translations, stats::unit::Count, "registers the park_rows translator translated"),
        ADD_STAT(level_reads, stats::unit::Count, "operand reads the rf_cache level served"),
        ADD_STAT(level_writes, stats::unit::Count, "write-backs the rf_cache level took"),
        ADD_STAT(level_conflict_cycles, stats::unit::Cycle, "cycles rf_cache reads waited for a bank port") {}
  stats::Scalar gate_checks, gated_issues, warps_launched, marks_issued, traps, trap_ops_done, activations, deactivations;
  stats::Scalar translations, level_reads, level_writes, level_conflict_cycles;
};

// Local offset of the toy's spill area in each thread's local memory: far
// above any frame of the project's kernels (the L1D interleaves local
// memory per warp in 512 KiB per thread).
constexpr uint32_t kToySpillOffset = 256 * 1024;

// Traps before calls and after their frames (extension point (i)), and the
// activation hook (h).
class ToyTraps final : public sm::SmEventHook, public sm::TrapListener, public sm::ActivationHook {
 public:
  ToyTraps(sm::Sm& sm, uint32_t regs, uint32_t hold) : sm_(sm), regs_(regs), hold_(hold) {}
  // The gate's question for a call: trap first, then let it through.
  bool beforeCall(uint32_t slot) {
    if (regs_ == 0) return true;
    if (trapped_.size() <= slot) trapped_.resize(slot + 1, 0);
    if (trapped_[slot]) return true;
    trapped_[slot] = 1;
    trap(slot, true);
    return false;
  }
  void callIssued(uint32_t slot) {
    if (slot < trapped_.size()) trapped_[slot] = 0;
  }
  void onFrameRelease(uint32_t slot, uint32_t, uint32_t, uint64_t) override {
    if (regs_) trap(slot, false);
  }
  void trapOpDone(uint32_t, const sm::TrapOp&, uint64_t) override { ++ops_done; }
  uint64_t onActivate(uint32_t, uint64_t now) override {
    ++activations;
    return now + hold_;
  }
  void onDeactivate(uint32_t, uint64_t) override { ++deactivations; }
  uint64_t traps = 0, ops_done = 0, activations = 0, deactivations = 0;

 private:
  void trap(uint32_t slot, bool store) {
    std::vector<sm::TrapOp> ops;
    for (uint32_t r = 0; r < regs_; ++r) ops.push_back({store, static_cast<uint16_t>(r), kToySpillOffset + 4 * r, r});
    sm_.trap(slot, ops, this);
    ++traps;
  }
  sm::Sm& sm_;
  uint32_t regs_, hold_;
  std::vector<uint8_t> trapped_;
};

// A register-file level with banks of its own (extension point (b)): every
// read is served by its banks, `latency` cycles after the grant; every
// write-back also writes it (it holds everything: a toy, not a cache).
class ToyLevel final : public sm::RegFileLevel {
 public:
  ToyLevel(uint32_t banks, uint32_t latency) : banks_(banks, 1, latency) {}
  sm::ReadReply read(uint32_t warp, uint32_t reg, uint32_t, uint64_t cycle) override {
    return sm::ReadReply::availableAt(banks_.access((reg + warp) % banks_.banks(), cycle));
  }
  void write(uint32_t warp, uint32_t reg, uint32_t, uint64_t cycle) override {
    ++writes;
    banks_.access((reg + warp) % banks_.banks(), cycle);
  }
  // Its state changes only when read or written: skipping stays on.
  uint64_t nextEventCycle(uint64_t) const override { return UINT64_MAX; }
  const sm::BankedArray& banks() const { return banks_; }
  uint64_t writes = 0;

 private:
  sm::BankedArray banks_;
};

// Lets everything pass (calls after their trap, when traps are on);
// counts the control-flow instructions.
class CountingGate final : public sm::IssueGate, public sm::WarpLaunchHook {
 public:
  explicit CountingGate(ToyTraps* traps) : traps_(traps) {}
  bool flags(const func::DInstr& d) const override {
    const ptx::Op op = d.in->op;
    return op == ptx::Op::Bra || op == ptx::Op::Call || op == ptx::Op::Ret || op == ptx::Op::Exit ||
           op == ptx::Op::Ext;
  }
  bool mayIssue(uint32_t slot, const func::DInstr& d, uint64_t) override {
    ++checks;
    return !(traps_ && d.in->op == ptx::Op::Call) || traps_->beforeCall(slot);
  }
  void issued(uint32_t slot, const func::DInstr& d, const func::StepInfo&, uint64_t) override {
    if (d.in->op == ptx::Op::Ext) {
      ++marks;
      return;
    }
    ++issues;
    if (traps_ && d.in->op == ptx::Op::Call) traps_->callIssued(slot);
  }
  // It only counts, so its instructions pair under dual issue as they do
  // without it; a call with traps on changes the trap's state at issue.
  bool holdsPair(const func::DInstr& d) const override { return traps_ && d.in->op == ptx::Op::Call; }
  uint64_t nextEventCycle(uint64_t) const override { return UINT64_MAX; }
  uint32_t onWarpLaunch(uint32_t, rt::Dim3, uint32_t) override {
    ++warps;
    return 0;
  }
  uint64_t checks = 0, issues = 0, warps = 0, marks = 0;

 private:
  ToyTraps* traps_;
};

class Toy final : public mech::Mechanism {
 public:
  explicit Toy(const config::GpuConfig& cfg)
      : c_(cfg.mechanisms.get<ToyConfig>("toy")), rf_rows_(cfg.warpRegisters()), max_warps_(cfg.sm.max_warps) {}
  std::string name() const override { return "toy"; }

  std::vector<backend::Variant> variants() const override {
    if (!c_.rename_pass && !c_.break_pass && !c_.mark_pass && !c_.park_pass) return {};
    backend::Variant v;
    v.name = "toy";
    v.description = c_.rename_pass ? "registers R2:R3 swapped with the highest pair in kernels without calls"
                                   : "the toy's passes";
    if (c_.mark_pass) v.description += "; `mark` before every call";
    if (c_.park_pass) v.description += "; R2:R3 of kernels without calls in UR0:UR1";
    if (c_.rename_pass) v.post.push_back({"toy.swap_pairs", swapPairs});
    if (c_.break_pass) v.post.push_back({"toy.break_value", breakValue});
    if (c_.mark_pass) v.post.push_back({"toy.mark_calls", markCalls});
    if (c_.park_pass) v.post.push_back({"toy.park_pair", parkPair});
    return {v};
  }
  std::string chooseVariant(const mech::LaunchInfo&, const mech::VariantTable& compiled) override {
    return compiled.count("toy") ? "toy" : "";
  }
  uint32_t admitBlocks(const mech::LaunchInfo&, const config::Occupancy& occ) override {
    return c_.blocks_per_sm ? std::min(occ.blocks, c_.blocks_per_sm) : occ.blocks;
  }
  void attachSm(sm::Sm& sm, uint32_t) override {
    sm::SmHooks h;  // every hook the toy has, as the configuration turns them on
    if (c_.park_rows) {
      parks_.push_back(std::make_unique<ParkTranslator>(sm, rf_rows_, c_.park_shared));
      h.translator = parks_.back().get();
      h.physical_rows = parks_.back()->rows(max_warps_);
    }
    ToyTraps* traps = nullptr;
    if (c_.trap_regs || c_.activation_hold) {
      traps_.push_back(std::make_unique<ToyTraps>(sm, c_.trap_regs, c_.activation_hold));
      traps = traps_.back().get();
      if (c_.trap_regs) h.events.push_back(traps);
      if (c_.activation_hold) h.activation = traps;
    }
    if (c_.rf_cache) {
      levels_.push_back(std::make_unique<ToyLevel>(c_.rf_cache_banks, c_.rf_cache_latency));
      h.level = levels_.back().get();
    }
    if (c_.gate) {
      gates_.push_back(std::make_unique<CountingGate>(c_.trap_regs ? traps : nullptr));
      h.gates.push_back(gates_.back().get());
      h.launch = gates_.back().get();
    }
    sm.install(h);
  }
  std::vector<sm::UnitInfo> smUnits(uint32_t) const override {
    std::vector<sm::UnitInfo> u;
    if (c_.gate) u.push_back({"toy_gate", "the toy's counting issue gate (an example unit)", "mechanisms.toy"});
    if (c_.rf_cache)
      u.push_back({"toy_rfc", "the toy's register-file level with banks of its own (an example unit)", "mechanisms.toy"});
    return u;
  }
  std::unique_ptr<stats::Group> endLaunch(stats::Group* parent) override {
    auto g = std::make_unique<ToyStats>(parent);
    for (const auto& gt : gates_) {
      g->gate_checks += gt->checks;
      g->gated_issues += gt->issues;
      g->warps_launched += gt->warps;
      g->marks_issued += gt->marks;
    }
    for (const auto& t : traps_) {
      g->traps += t->traps;
      g->trap_ops_done += t->ops_done;
      g->activations += t->activations;
      g->deactivations += t->deactivations;
    }
    for (const auto& p : parks_) g->translations += p->translations;
    for (const auto& l : levels_) {
      g->level_reads += l->banks().accesses() - l->writes;
      g->level_writes += l->writes;
      g->level_conflict_cycles += l->banks().conflictCycles();
    }
    gates_.clear();
    traps_.clear();
    levels_.clear();
    parks_.clear();
    return g;
  }
  std::vector<energy::Structure> energyStructures(const stats::Group& g) const override {
    // An example structure: a counter bumped per gated instruction, at the
    // configured energy per bump, with some leakage per SM.
    const auto& s = dynamic_cast<const ToyStats&>(g);
    return {{"counter", s.gated_issues.get(), c_.counter_pj, c_.counter_static_mw * 1e-3}};
  }

 private:
  ToyConfig c_;
  uint32_t rf_rows_, max_warps_;
  std::vector<std::unique_ptr<CountingGate>> gates_;
  std::vector<std::unique_ptr<ToyTraps>> traps_;
  std::vector<std::unique_ptr<ToyLevel>> levels_;
  std::vector<std::unique_ptr<ParkTranslator>> parks_;
};

}  // namespace

mech::MechanismInfo toyMechanismInfo() {
  mech::MechanismInfo m;
  m.name = "toy";
  m.summary = "example plug-in: a register-swap pass, a counting issue gate, an admission limit";
  m.status = "example (tests, benchmark, docs/mechanisms.md)";
  m.section.name = "toy";
  m.section.desc = "the toy mechanism (docs/mechanisms.md)";
  m.section.make = [] { return config::ErasedSection(std::make_unique<config::SectionOf<ToyConfig>>()); };
  m.section.check = [](const config::ErasedSection& s) -> std::optional<config::SectionViolation> {
    const auto& c = s.as<ToyConfig>();
    if (c.park_shared && !c.park_rows)
      return config::SectionViolation{"park_shared", "park_rows", "shared rows need the toy's translator"};
    if (c.trap_regs && !c.gate)
      return config::SectionViolation{"trap_regs", "gate", "traps need the gate: it holds a call until its trap is done"};
    return std::nullopt;
  };
  m.make = [](const config::GpuConfig& cfg) { return std::make_unique<Toy>(cfg); };
  // Its ISA extensions (ptx/isa_ext.h): an instruction and a control field.
  m.isa_ops.push_back({"toy.mark", "mark", "marks a call (operand: the registers the caller uses); the gate counts it",
                       ptx::ExtTiming::Issue, 1});
  m.control_fields.push_back({"toy.tag", 2});
  m.reg_classes.push_back({"toy.ur", "UR", "four 32-bit registers per warp outside the general registers (park_pass)",
                           4});
  return m;
}

}  // namespace rfsim::toy
