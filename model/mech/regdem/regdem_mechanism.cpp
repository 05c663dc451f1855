#include "mech/regdem/regdem_mechanism.h"

#include <fmt/format.h>

#include "backend/backend.h"
#include "mech/regdem/demote.h"
#include "mech/regdem/local.h"
#include "mech/regdem/regdem_config.h"

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

  // RegDem's code and the paper's three comparison variants (local.h).
  std::vector<backend::Variant> variants() const override {
    backend::Variant v;
    v.name = "regdem";
    v.description = "registers demoted to shared memory and the numbering compacted (RegDem 3.2-3.3)";
    v.post.push_back(demotePass(gpu_, c_));
    return {v, localVariant(gpu_, c_), localSharedVariant(gpu_, c_, false), localSharedVariant(gpu_, c_, true)};
  }

  // select: regdem (default) runs the demoted code wherever the pass reached
  // its target (it then has fewer registers than nvcc's); local,
  // local-shared, local-shared-relax run that variant wherever it changed
  // the kernel's registers. Otherwise, and with select: nvcc, no preference
  // (nvcc's code, or the variant of another mechanism switched on).
  std::string chooseVariant(const mech::LaunchInfo& info, const mech::VariantTable& compiled) override {
    last_ = {};
    const std::string want = c_.select;
    auto base = compiled.find("base"), var = compiled.find(want);
    const backend::FunctionReport* b = base != compiled.end() ? base->second->find(info.kernel) : nullptr;
    const backend::FunctionReport* d = var != compiled.end() ? var->second->find(info.kernel) : nullptr;
    if (b) last_.regs_nvcc = last_.regs = b->regs;
    if (!b || !d || d->regs == b->regs || want == "nvcc") return "";
    if (want == "regdem" && d->regs > b->regs) return "";
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
    return g;
  }

 private:
  struct Last {
    bool demoted = false;
    uint32_t regs_nvcc = 0, regs = 0, area = 0, loads = 0, stores = 0;
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
  m.status = "partial: the demotion pass (Fig. 3: three candidate strategies, eq. 1 layout, RDA/RDV, operand-"
             "conflict removal, multi-word registers, the barriers of the demoted accesses) with compaction (shift and "
             "swap, bank-aware) and the post-passes (redundant code, schedule update, RDV substitution); the "
             "value-following check through shared memory; the variants nvcc, regdem, local, local-shared and "
             "local-shared-relax, one chosen per launch (select); the GTX Titan X configuration with dependency "
             "barriers; six of the nine suite kernels with Table 1 and Fig. 6, 7, 8 (scripts/regdem_repro.sh)";
  m.paper = "RegDem: Increasing GPU Performance via Shared Memory Register Spilling (Sakdhnagool, Sabne, Eigenmann)";
  m.section.name = "regdem";
  m.section.desc = "RegDem register demotion (RegDem paper, sections 3.2-3.4)";
  m.section.make = [] { return config::ErasedSection(std::make_unique<config::SectionOf<RegDemConfig>>()); };
  m.make = [](const config::GpuConfig& cfg) { return std::make_unique<RegDem>(cfg); };
  return m;
}

}  // namespace rfsim::regdem
