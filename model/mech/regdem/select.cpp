#include "mech/regdem/select.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "backend/backend.h"
#include "backend/depctl.h"
#include "common/error.h"
#include "mech/regdem/demote.h"
#include "mech/regdem/shared_area.h"
#include "ptx/analysis/cfg.h"
#include "ptx/analysis/printer.h"
#include "sm/issue/op_class.h"

namespace rfsim::regdem {

namespace {

std::string comboName(const std::string& strategy, bool bank, bool red, bool sched, bool subst) {
  return fmt::format("rd_{}_{}{}{}{}", strategy, int(bank), int(red), int(sched), int(subst));
}

// The options a variant has on (section 5.7's tie-break): a RegDem variant's
// four post-pass options; the other variants none.
uint32_t optionsOf(const std::string& variant) {
  if (!isRegDemVariant(variant)) return 0;
  const std::string bits = variant.substr(variant.rfind('_') + 1);
  return static_cast<uint32_t>(std::count(bits.begin(), bits.end(), '1'));
}

bool hasControlCodes(const ptx::Function& fn) {
  for (const auto& bb : fn.blocks)
    for (const auto& in : bb.instrs)
      if (in.stall) return true;
  return false;
}

}  // namespace

std::vector<backend::Variant> searchSpace(const config::GpuConfig& gpu, const RegDemConfig& cfg) {
  std::vector<backend::Variant> out;
  for (const Strategy strategy : {Strategy::Static, Strategy::Cfg, Strategy::Conflicts})
    for (uint32_t bits = 0; bits < 16; ++bits) {
      RegDemConfig c = cfg;
      const std::string& s = config::choiceName(strategy);
      c.strategy = strategy;
      c.bank_aware = bits & 8;
      c.redundant_code = bits & 4;
      c.schedule_update = bits & 2;
      c.rdv_substitution = bits & 1;
      backend::Variant v;
      v.name = comboName(s, c.bank_aware, c.redundant_code, c.schedule_update, c.rdv_substitution);
      v.description = fmt::format("RegDem with {} candidates{}{}{}{} (the predictor's search space)", s,
                                  c.bank_aware ? ", bank-aware" : "", c.redundant_code ? ", redundant code" : "",
                                  c.schedule_update ? ", schedule update" : "",
                                  c.rdv_substitution ? ", RDV substitution" : "");
      v.post.push_back(demotePass(gpu, c));
      out.push_back(std::move(v));
    }
  return out;
}

std::vector<Candidate> candidates(const config::GpuConfig& gpu, const RegDemConfig& cfg, const mech::LaunchInfo& info,
                                  const mech::VariantTable& compiled) {
  auto base = compiled.find("base");
  const backend::FunctionReport* b = base != compiled.end() ? base->second->find(info.kernel) : nullptr;
  if (!b) throw Error(fmt::format("regdem: kernel {} is not in the compiled module", info.kernel));
  // eq. 2's throughputs from the configuration: a unit's lanes over its
  // initiation interval (GM200: 4 x 32 FP32 lanes, 4 FP64 lanes).
  PredictorParams p;
  double max_tp = 0;
  for (sm::UnitType u : {sm::UnitType::SP, sm::UnitType::INT, sm::UnitType::SFU, sm::UnitType::DP, sm::UnitType::LDST})
    max_tp = std::max(max_tp, 32.0 * sm::unitCount(u, gpu.pipeline));
  p.max_throughput = max_tp;
  p.throughput = [&gpu](const ptx::Instr& in) {
    const sm::OpTiming t = sm::opTiming(in, gpu);
    return 32.0 * std::max<uint32_t>(1, sm::unitCount(t.unit, gpu.pipeline)) / std::max<uint32_t>(1, t.ii);
  };
  p.kind = [&gpu](const ptx::Instr& in) { return sm::depTiming(in, gpu).kind; };
  p.loop_factor = cfg.loop_weight;
  const FTable f = FTable::parse(cfg.f_occupancy);
  const uint32_t threads = info.threads_per_block;
  const uint32_t warps = (threads + 31) / 32;

  std::vector<Candidate> out;
  for (const auto& [name, cm] : compiled) {
    if (name != "base" && name != "local" && name != "local-shared" && name != "local-shared-relax" &&
        name.rfind("rd_", 0) != 0)
      continue;
    const backend::FunctionReport* r = cm->find(info.kernel);
    if (!r || (name != "base" && r->tree_regs == b->tree_regs)) continue;
    Candidate c;
    c.variant = name;
    c.options = optionsOf(name);
    c.regs = r->tree_regs;
    c.shared = staticShared(cm->machine) + info.dynamic_shared;
    for (const auto& s : cm->machine.symbols)
      if (s.name == kAreaSymbol) c.shared += static_cast<uint32_t>(s.size);
    c.blocks = blocksAt(gpu, c.regs, threads, c.shared);
    c.occupancy = double(c.blocks * warps) / double(gpu.sm.max_warps);
    const ptx::Function& fn = cm->machine.functions[r->index];
    c.code = ptx::printFunction(cm->machine, fn);
    p.occupancy = c.occupancy;
    StallEstimate e;
    if (hasControlCodes(fn)) {
      e = estimateStalls(cm->machine, r->index, p);
    } else {
      // The scoreboard configurations carry no control codes: the
      // predictor reads the ones Maxwell's compiler would give the code.
      ptx::Module copy = cm->machine;
      const backend::DepTimingFn timing = [&gpu](const ptx::Instr& in) { return sm::depTiming(in, gpu); };
      for (auto& g : copy.functions)
        if (!g.is_extern && !g.blocks.empty()) {
          ptx::buildCfg(g);
          backend::assignDependencies(g, timing, backend::DepMode::Assign);
        }
      e = estimateStalls(copy, r->index, p);
    }
    c.stall_count = e.stall_count;
    c.naive = e.naive;
    if (auto t = info.trial_cycles.find(name); t != info.trial_cycles.end()) c.cycles = t->second;
    out.push_back(std::move(c));
  }
  double occ_max = 0;
  for (const auto& c : out) occ_max = std::max(occ_max, c.occupancy);
  for (auto& c : out) c.estimate = c.occupancy > 0 ? stallProgram(c.stall_count, c.occupancy, occ_max, f) : INFINITY;
  // Cycles measured for one code stand for every variant with that code.
  for (auto& c : out)
    if (!c.cycles)
      for (const auto& o : out)
        if (o.cycles && o.code == c.code) c.cycles = o.cycles;
  return out;
}

bool isRegDemVariant(const std::string& variant) { return variant.rfind("rd_", 0) == 0; }

std::vector<std::string> distinctVariants(const std::vector<Candidate>& c, bool regdem_only) {
  std::vector<std::string> out;
  std::vector<size_t> kept;
  for (size_t i = 0; i < c.size(); ++i) {
    if (regdem_only && !isRegDemVariant(c[i].variant)) continue;
    auto same = std::find_if(kept.begin(), kept.end(), [&](size_t k) { return c[k].code == c[i].code; });
    if (same == kept.end()) {
      kept.push_back(i);
    } else if (c[i].options > c[*same].options) {
      *same = i;
    }
  }
  for (size_t k : kept) out.push_back(c[k].variant);
  return out;
}

size_t pick(const std::vector<Candidate>& c, Select mode) {
  if (c.empty()) throw Error("regdem: no variant to choose from");
  if (mode == Select::Best) {
    // Section 5.4's exhaustive search over RegDem's option combinations:
    // the fastest measured, else (no trials: a functional run) the
    // predictor's pick among them; nvcc's code where RegDem did not apply.
    bool any = false, measured = false;
    for (const auto& x : c)
      if (isRegDemVariant(x.variant)) any = true, measured = measured || x.cycles;
    if (!any) {
      for (size_t i = 0; i < c.size(); ++i)
        if (c[i].variant == "base") return i;
      throw Error("regdem: nvcc's code is not among the candidates");
    }
    std::vector<Candidate> rd;
    std::vector<size_t> index;
    for (size_t i = 0; i < c.size(); ++i)
      if (isRegDemVariant(c[i].variant)) rd.push_back(c[i]), index.push_back(i);
    return index[pick(rd, measured ? Select::Oracle : Select::Predictor)];
  }
  auto key = [&](const Candidate& x) -> double {
    if (mode == Select::Predictor) return x.estimate;
    if (mode == Select::Naive) return x.naive;
    if (mode == Select::Oracle) return x.cycles ? double(x.cycles) : INFINITY;
    throw Error(fmt::format("regdem: select {} does not choose per launch", config::choiceName(mode)));
  };
  size_t best = 0;
  for (size_t i = 1; i < c.size(); ++i) {
    const double a = key(c[i]), b = key(c[best]);
    const bool tie = std::fabs(a - b) <= 1e-9 * std::max(std::fabs(a), std::fabs(b));
    if ((!tie && a < b) || (tie && c[i].options > c[best].options)) best = i;
  }
  return best;
}

}  // namespace rfsim::regdem
