#include "mech/regdem/regdem_mechanism.h"

#include <fmt/format.h>

#include "backend/backend.h"
#include "common/error.h"
#include "mech/regdem/demote.h"
#include "mech/regdem/local.h"
#include "mech/regdem/regdem_config.h"
#include "mech/regdem/select.h"

namespace rfsim::regdem {

namespace {

// What a launch ran (the variant's facts for its kernel).
struct RegDemLaunchStats : stats::Group {
  explicit RegDemLaunchStats(stats::Group* parent)
      : Group(parent, "regdem", "RegDem: the launch's code (demoted registers in shared memory)"),
        ADD_STAT(demoted_code, stats::unit::Count, "1 when the launch ran the selected variant's code (regdem, local, ...), 0 for nvcc's"),
        ADD_STAT(regs_nvcc, stats::unit::Count, "registers per thread of nvcc's (the baseline's) code"),
        ADD_STAT(regs, stats::unit::Count, "registers per thread of the code the launch ran"),
        ADD_STAT(area_bytes, stats::unit::Byte, "shared memory per block holding demoted registers (or spill slots)"),
        ADD_STAT(demoted_loads, stats::unit::Count, "ld.shared of demoted registers or spill slots in the code (static)"),
        ADD_STAT(demoted_stores, stats::unit::Count, "st.shared of demoted registers or spill slots in the code (static)") {}
  stats::Scalar demoted_code, regs_nvcc, regs, area_bytes, demoted_loads, demoted_stores;
  std::vector<std::unique_ptr<stats::Group>> owned;  // sub-groups, parents first
  ~RegDemLaunchStats() override {
    while (!owned.empty()) owned.pop_back();  // children before their parents
  }
};

// select: predictor, naive or oracle: every candidate of the launch, under
// regdem.choice.<variant> ("base" is nvcc's code).
struct ChoiceStats : stats::Group {
  ChoiceStats(stats::Group* parent, const Candidate& c, bool chosen, bool predicted, bool naive, bool best)
      : Group(parent, c.variant, "a candidate variant of the launch (select.h)"),
        c_(c),
        ADD_STAT(chosen, stats::unit::Count, "1 for the variant the launch ran"),
        ADD_STAT(predicted, stats::unit::Count, "1 for the predictor's choice (smallest eq. 3 estimate)"),
        ADD_STAT(naive_choice, stats::unit::Count, "1 for the naive scheme's choice (fewest annotated stalls)"),
        ADD_STAT(fastest, stats::unit::Count, "1 for the fastest measured (oracle trials; 0 without them)"),
        ADD_STAT(options, stats::unit::Count, "performance options enabled (the tie-break)"),
        ADD_STAT(regs, stats::unit::Count, "registers per thread"),
        ADD_STAT(blocks, stats::unit::Count, "resident blocks per SM (theoretical)"),
        ADD_STAT(cycles, stats::unit::Cycle, "cycles measured on this launch (oracle trials; 0 without them)"),
        ADD_STAT(occupancy, stats::unit::Ratio, "theoretical occupancy", [this] { return c_.occupancy; }),
        ADD_STAT(stall_count, stats::unit::Cycle, "Fig. 5 stall count (eq. 2, barrier waits, loop factors)",
                 [this] { return c_.stall_count; }),
        ADD_STAT(estimate, stats::unit::Cycle, "eq. 3: f(occupancy) / f(occupancy_max) x stall count",
                 [this] { return c_.estimate; }),
        ADD_STAT(naive, stats::unit::Cycle, "annotated stall cycles of the code", [this] { return c_.naive; }) {
    this->chosen += chosen;
    this->predicted += predicted;
    naive_choice += naive;
    fastest += best;
    options += c.options;
    regs += c.regs;
    blocks += c.blocks;
    cycles += c.cycles;
  }
  Candidate c_;
  stats::Scalar chosen, predicted, naive_choice, fastest, options, regs, blocks, cycles;
  stats::Formula occupancy, stall_count, estimate, naive;
};

uint32_t countRole(const backend::CompiledModule& cm, const backend::FunctionReport& r, ptx::MRole role) {
  uint32_t n = 0;
  for (const auto& bb : cm.machine.functions[r.index].blocks)
    for (const auto& in : bb.instrs) n += in.role == role;
  return n;
}

class RegDem final : public mech::Mechanism {
 public:
  explicit RegDem(const config::GpuConfig& cfg) : gpu_(cfg), c_(cfg.mechanisms.get<RegDemConfig>("regdem")) {}
  std::string name() const override { return "regdem"; }
  // Its codes are ordinary code: demoted registers live in shared memory.
  bool codeRunsFunctionally() const override { return true; }

  // RegDem's code and the paper's three comparison variants (local.h).
  std::vector<backend::Variant> variants() const override {
    backend::Variant v;
    v.name = "regdem";
    v.description = "registers demoted to shared memory and the numbering compacted (RegDem 3.2-3.3)";
    v.post.push_back(demotePass(gpu_, c_));
    std::vector<backend::Variant> out{v, localVariant(gpu_, c_), localSharedVariant(gpu_, c_, false),
                                      localSharedVariant(gpu_, c_, true)};
    if (perLaunch())
      for (auto& r : searchSpace(gpu_, c_)) out.push_back(std::move(r));
    return out;
  }

  // select: oracle: every distinct code of the search space, measured;
  // best: every distinct code of RegDem's option combinations.
  std::vector<std::string> trialVariants(const mech::LaunchInfo& info, const mech::VariantTable& compiled) override {
    if (c_.select != Select::Oracle && c_.select != Select::Best) return {};
    return distinctVariants(candidates(gpu_, c_, info, compiled), c_.select == Select::Best);
  }

  // select: regdem (default) runs the demoted code wherever the pass reached
  // its target (it then has fewer registers than nvcc's); local,
  // local-shared, local-shared-relax run that variant wherever it changed
  // the kernel's registers. Otherwise, and with select: nvcc, no preference
  // (nvcc's code, or the variant of another mechanism switched on).
  std::string chooseVariant(const mech::LaunchInfo& info, const mech::VariantTable& compiled) override {
    last_ = {};
    std::string want = config::choiceName(c_.select);  // the variant of that name, unless chosen per launch
    if (perLaunch()) {
      last_.cands = candidates(gpu_, c_, info, compiled);
      // Without trials (a functional run) the oracle has nothing measured:
      // the predictor chooses (best: among RegDem's variants, pick()).
      last_.chosen =
          pick(last_.cands, c_.select == Select::Oracle && info.trial_cycles.empty() ? Select::Predictor : c_.select);
      last_.predicted = pick(last_.cands, Select::Predictor);
      last_.naive = pick(last_.cands, Select::Naive);
      if (!info.trial_cycles.empty()) last_.fastest = pick(last_.cands, Select::Oracle);
      want = last_.cands[last_.chosen].variant;
      if (want == "base") {
        last_.regs_nvcc = last_.regs = last_.cands[last_.chosen].regs;
        return "";
      }
    }
    auto base = compiled.find("base"), var = compiled.find(want);
    const backend::FunctionReport* b = base != compiled.end() ? base->second->find(info.kernel) : nullptr;
    const backend::FunctionReport* d = var != compiled.end() ? var->second->find(info.kernel) : nullptr;
    if (b) last_.regs_nvcc = last_.regs = b->regs;
    if (!b || !d || d->regs == b->regs || c_.select == Select::Nvcc) return "";
    if (c_.select == Select::RegDem && d->regs > b->regs) return "";
    last_.demoted = true;
    last_.regs = d->regs;
    last_.loads = countRole(*var->second, *d, ptx::MRole::DemLoad);
    last_.stores = countRole(*var->second, *d, ptx::MRole::DemStore);
    for (const auto& s : var->second->machine.symbols)
      if (s.name == kAreaSymbol) last_.area = static_cast<uint32_t>(s.size);
    return want;
  }

  std::unique_ptr<stats::Group> endLaunch(stats::Group* parent) override {
    auto g = std::make_unique<RegDemLaunchStats>(parent);
    g->demoted_code += last_.demoted ? 1 : 0;
    g->regs_nvcc += last_.regs_nvcc;
    g->regs += last_.regs;
    g->area_bytes += last_.area;
    g->demoted_loads += last_.loads;
    g->demoted_stores += last_.stores;
    if (!last_.cands.empty()) {
      auto* choice = new stats::Group(g.get(), "choice", "the candidates of select: predictor, naive or oracle");
      g->owned.emplace_back(choice);
      for (size_t i = 0; i < last_.cands.size(); ++i)
        g->owned.emplace_back(std::make_unique<ChoiceStats>(choice, last_.cands[i], i == last_.chosen,
                                                          i == last_.predicted, i == last_.naive,
                                                          last_.fastest == i));
    }
    return g;
  }

 private:
  bool perLaunch() const {
    return c_.select == Select::Predictor || c_.select == Select::Naive || c_.select == Select::Oracle ||
           c_.select == Select::Best;
  }

  struct Last {
    bool demoted = false;
    uint32_t regs_nvcc = 0, regs = 0, area = 0, loads = 0, stores = 0;
    std::vector<Candidate> cands;
    size_t chosen = 0, predicted = 0, naive = 0, fastest = SIZE_MAX;
  };
  config::GpuConfig gpu_;
  RegDemConfig c_;
  Last last_;
};

}  // namespace

mech::MechanismInfo regdemMechanismInfo() {
  mech::MechanismInfo m;
  m.name = "regdem";
  m.summary = "register demotion to shared memory: registers moved to unused shared memory to raise occupancy";
  m.status = "complete: the demotion pass (Fig. 3: three candidate strategies, eq. 1 layout, RDA/RDV, operand-"
             "conflict removal, multi-word registers, the barriers of the demoted accesses) with compaction (shift and "
             "swap, bank-aware) and the post-passes (redundant code, schedule update, RDV substitution); the "
             "value-following check through shared memory; the variants nvcc, regdem, local, local-shared and "
             "local-shared-relax, one chosen per launch (select), or per launch over the paper's 52-variant search space "
             "by the compile-time predictor (eqs. 2-3, f(occupancy) measured on titanx), the naive stall count or an "
             "oracle that measures every distinct code, or RegDem's best option combination measured (Fig. 6); the "
             "GTX Titan X configuration with dependency barriers and the register file by quadrant; the nine-kernel "
             "suite with Table 1 and Fig. 6-9 (scripts/regdem_repro.sh, docs/regdem.md)";
  m.paper = "RegDem: Increasing GPU Performance via Shared Memory Register Spilling (Sakdhnagool, Sabne, Eigenmann)";
  m.section.name = "regdem";
  m.section.desc = "RegDem register demotion (RegDem paper, sections 3.2-3.4)";
  m.section.make = [] { return config::ErasedSection(std::make_unique<config::SectionOf<RegDemConfig>>()); };
  m.section.check = [](const config::ErasedSection& s) -> std::optional<config::SectionViolation> {
    try {
      FTable::parse(s.as<RegDemConfig>().f_occupancy);
    } catch (const Error& e) {
      return config::SectionViolation{"f_occupancy", "", e.what()};
    }
    return std::nullopt;
  };
  m.make = [](const config::GpuConfig& cfg) { return std::make_unique<RegDem>(cfg); };
  return m;
}

}  // namespace rfsim::regdem
