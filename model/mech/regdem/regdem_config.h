// The RegDem mechanism's configuration section, `mechanisms.regdem:`
// (Sakdhnagool, Sabne, Eigenmann, "RegDem: Increasing GPU Performance via
// Shared Memory Register Spilling"; docs/regdem.md).
#pragma once

#include <cstdint>
#include <string>

#include "config/gpu_config.h"

namespace rfsim::regdem {

// f(occupancy) measured on configs/titanx.yaml (scripts/regdem_f_occupancy.sh:
// whole waves of the microbenchmark at every occupancy, section 4's "only the
// impact of occupancy on performance"), with Maxwell's instruction encoding
// (l1i.encoding bits64_ctrl3; docs/regdem.md, "The predictor").
inline constexpr const char* kTitanxFTable =
    "0.125:3.325,0.1875:2.038,0.25:1.554,0.3125:1.296,0.375:1.187,0.4375:1.093,"
    "0.5:1.081,0.5625:1.066,0.625:1.037,0.6562:1.058,0.75:1.035,0.7812:1.032,1:1.000";

// The choice keys' values (config/gpu_config_fields.h: enums with their names).
enum class Strategy : uint8_t { Static, Cfg, Conflicts };
inline const config::Choices& choiceNames(Strategy) {
  static const config::Choices names{"static", "cfg", "conflicts"};
  return names;
}
enum class Select : uint8_t { RegDem, Nvcc, Local, LocalShared, LocalSharedRelax, Predictor, Naive, Oracle, Best };
inline const config::Choices& choiceNames(Select) {
  static const config::Choices names{"regdem", "nvcc", "local", "local-shared", "local-shared-relax",
                                     "predictor", "naive", "oracle", "best"};
  return names;
}

struct RegDemConfig {
  // The register count to reach (the count a launch allocates: highest
  // register + 1 + the compiler's reserved ones). 0: found per kernel from
  // the occupancy calculator -- the largest count that gives `steps` more
  // occupancy steps (resident blocks per SM) than the kernel has (the pass
  // then checks that the demoted area fits and still gains). The paper's Table 1 targets
  // are one step up for eight of its nine kernels (cfd: two).
  uint32_t target = 0;
  uint32_t steps = 1;
  // Per-kernel targets, before `target`: "kernel=N,kernel=N" (the paper
  // chose one per kernel: Table 1).
  std::string targets;
  // The demotion loop stops at this many registers (Fig. 3: "p.reg_count >
  // 32": on Maxwell 32 registers already give full occupancy).
  uint32_t min_regs = 32;
  // Candidate order (section 3.4.3), every one ascending: `static`: register
  // accesses in the code; `cfg`: accesses per block times loop_weight per
  // enclosing loop; `conflicts`: how many other registers share an
  // instruction with it.
  Strategy strategy = Strategy::Cfg;
  uint32_t loop_weight = 10;
  // Which code a launch runs: `regdem` (the demoted code wherever demotion
  // reached its target), `nvcc` (the baseline's, always), one of the
  // paper's comparison variants (local.h): `local`, `local-shared`,
  // `local-shared-relax`, wherever it applies; or chosen per launch among
  // all 52 variants of the paper's search space (select.h): `predictor`
  // (section 4), `naive` (annotated stalls only, section 5.7) or `oracle`
  // (every distinct variant measured on the launch, the fastest kept); or
  // `best`: RegDem with its best option combination, each distinct code of
  // RegDem's 48 combinations measured on the launch (section 5.4: Fig. 6's
  // RegDem bar, "found through exhaustive search over all combinations").
  Select select = Select::RegDem;
  // The predictor's f(occupancy) (eq. 3): execution time at an occupancy
  // relative to full occupancy, "occupancy:time,...". The paper measured it
  // on compute-bound microbenchmarks with register-padded occupancy; this
  // table is the same measurement on our titanx model
  // (scripts/regdem_f_occupancy.sh; docs/regdem.md, "The predictor").
  std::string f_occupancy = kTitanxFTable;
  // Post-passes (section 3.4.2), each an option as in the paper's search
  // (Fig. 7 disables one at a time).
  bool redundant_code = true;   // drop demoted loads RDV still holds, stores the block overwrites
  bool schedule_update = true;  // hoist demoted loads; no store barrier where RDV is not rewritten
  bool rdv_substitution = true; // RDV values moved to registers dead in their block
  bool bank_aware = false;      // compaction keeps each register in its bank where it costs no register
  uint32_t banks = 4;           // register banks for bank_aware (GM200: register r in bank r % 4)

  template <class V> void visit(V& v) {
    v.integer("target", target, config::IntRange{0, 255}, "register",
              "registers per thread to demote down to (0: the count `steps` occupancy steps up, per kernel)");
    v.text("targets", targets,
             "per-kernel targets before `target`: kernel=registers, comma-separated (e.g. cfd_flux=56)");
    v.integer("steps", steps, config::IntRange{1, 8}, "step",
              "with target 0: how many occupancy steps (more resident blocks) to gain");
    v.integer("min_regs", min_regs, config::IntRange{2, 255}, "register",
              "the demotion loop stops at this count (paper Fig. 3: 32)");
    v.choice("strategy", strategy,
             "candidate order: static access count, CFG count with loop weight, fewest operand conflicts (3.4.3)");
    v.integer("loop_weight", loop_weight, config::IntRange{1, 1000}, "",
              "cfg strategy: weight of an access per enclosing loop (paper: 10)");
    v.boolean("redundant_code", redundant_code,
              "post-pass: drop a demoted load whose slot's value RDV still holds, and a demoted store whose slot "
              "the block stores again before loading it (section 3.4.2)");
    v.boolean("schedule_update", schedule_update,
              "post-pass: hoist demoted loads as early as their block allows, and give a demoted store a barrier "
              "only where RDV is rewritten before the next jump (section 3.4.2)");
    v.boolean("rdv_substitution", rdv_substitution,
              "post-pass: move each value RDV holds within a block to a register dead over its range, so demoted "
              "loads can overlap (section 3.4.2)");
    v.boolean("bank_aware", bank_aware,
              "post-pass: bank-aware compaction, each register kept in its bank (register % banks) where that "
              "costs no register (sections 3.3, 3.4.2)");
    v.integer("banks", banks, config::IntRange{1, 16}, "bank", "register banks bank_aware keeps (GM200: 4)");
    v.choice("select", select,
             "the code a launch runs: RegDem's where it reached its target, nvcc's (baseline), a comparison variant "
             "of the paper's Table 3 where it applies, or per launch over the paper's 52-variant search space: the "
             "predictor's choice (eqs. 2-3), the naive stall count's, or the fastest measured (oracle); or RegDem with "
             "its fastest measured option combination (best: Fig. 6, section 5.4)");
    v.text("f_occupancy", f_occupancy,
           "the predictor's f(occupancy), eq. 3: occupancy:relative time pairs, ascending (measured on titanx by "
           "scripts/regdem_f_occupancy.sh)");
  }
};

// The target `cfg.targets` gives `kernel`, or 0. Throws rfsim::Error for a
// malformed entry.
uint32_t kernelTarget(const RegDemConfig& cfg, const std::string& kernel);

}  // namespace rfsim::regdem
