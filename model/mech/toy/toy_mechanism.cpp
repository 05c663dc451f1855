#include "mech/toy/toy_mechanism.h"

#include <algorithm>
#include <vector>

#include "backend/backend.h"
#include "backend/mfunction.h"
#include "common/error.h"
#include "sm/core/sm.h"

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

struct ToyStats : stats::Group {
  explicit ToyStats(stats::Group* parent)
      : Group(parent, "toy", "the toy mechanism (an example plug-in)"),
        ADD_STAT(gate_checks, stats::unit::Count, "flagged warp instructions the gate was asked about (warp-cycles)"),
        ADD_STAT(gated_issues, stats::unit::Count, "flagged warp instructions issued (bra, call, ret, exit)"),
        ADD_STAT(warps_launched, stats::unit::Count, "warps the launch hook saw") {}
  stats::Scalar gate_checks, gated_issues, warps_launched;
};

// Lets everything pass; counts the control-flow instructions.
class CountingGate final : public sm::IssueGate, public sm::WarpLaunchHook {
 public:
  bool flags(const func::DInstr& d) const override {
    const ptx::Op op = d.in->op;
    return op == ptx::Op::Bra || op == ptx::Op::Call || op == ptx::Op::Ret || op == ptx::Op::Exit;
  }
  bool mayIssue(uint32_t, const func::DInstr&, uint64_t) override {
    ++checks;
    return true;
  }
  void issued(uint32_t, const func::DInstr&, uint64_t) override { ++issues; }
  uint64_t nextEventCycle(uint64_t) const override { return UINT64_MAX; }
  uint32_t onWarpLaunch(uint32_t, rt::Dim3, uint32_t) override {
    ++warps;
    return 0;
  }
  uint64_t checks = 0, issues = 0, warps = 0;
};

class Toy final : public mech::Mechanism {
 public:
  explicit Toy(const config::GpuConfig& cfg) : c_(cfg.mechanisms.get<ToyConfig>("toy")) {}
  std::string name() const override { return "toy"; }

  std::vector<backend::Variant> variants() const override {
    if (!c_.rename_pass && !c_.break_pass) return {};
    backend::Variant v;
    v.name = "toy";
    v.description = "registers R2:R3 swapped with the highest pair in kernels without calls";
    if (c_.rename_pass) v.post.push_back({"toy.swap_pairs", swapPairs});
    if (c_.break_pass) v.post.push_back({"toy.break_value", breakValue});
    return {v};
  }
  std::string chooseVariant(const mech::LaunchInfo&, const mech::VariantTable& compiled) override {
    return compiled.count("toy") ? "toy" : "";
  }
  uint32_t admitBlocks(const mech::LaunchInfo&, const config::Occupancy& occ) override {
    return c_.blocks_per_sm ? std::min(occ.blocks, c_.blocks_per_sm) : occ.blocks;
  }
  void attachSm(sm::Sm& sm, uint32_t) override {
    if (!c_.gate) return;
    gates_.push_back(std::make_unique<CountingGate>());
    sm.setIssueGate(gates_.back().get());
    sm.setWarpLaunchHook(gates_.back().get());
  }
  std::vector<sm::UnitInfo> smUnits(uint32_t) const override {
    if (!c_.gate) return {};
    return {{"toy_gate", "the toy's counting issue gate (an example unit)", "mechanisms.toy"}};
  }
  std::unique_ptr<stats::Group> endLaunch(stats::Group* parent) override {
    auto g = std::make_unique<ToyStats>(parent);
    for (const auto& gt : gates_) {
      g->gate_checks += gt->checks;
      g->gated_issues += gt->issues;
      g->warps_launched += gt->warps;
    }
    gates_.clear();
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
  std::vector<std::unique_ptr<CountingGate>> gates_;
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
  m.make = [](const config::GpuConfig& cfg) { return std::make_unique<Toy>(cfg); };
  return m;
}

}  // namespace rfsim::toy
