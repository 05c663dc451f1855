// Which RegDem variant a launch runs when the choice is made per launch
// (mechanisms.regdem.select: predictor, naive or oracle; RegDem paper
// section 4 and 5.7, docs/regdem.md):
//
//   the search space  nvcc's code, local, local-shared, local-shared-relax,
//                     and RegDem under every candidate strategy (static,
//                     cfg, conflicts) with every combination of its four
//                     options (bank-aware compaction, redundant-code
//                     elimination, schedule update, RDV substitution): 52
//                     variants, the RegDem ones named rd_<strategy>_<bits>
//                     with one bit per option in that order (rd_cfg_0111:
//                     cfg candidates, every post-pass, plain compaction);
//   predictor         the smallest eq. 3 estimate (predictor.h), ties to the
//                     variant with the most options enabled (section 5.7);
//   naive             the fewest annotated stall cycles, ties as above;
//   oracle            each distinct code measured on the launch itself
//                     (the runtime's trials), the fewest cycles;
//   best              the same over RegDem's 48 variants alone: Fig. 6's
//                     RegDem bar, "the best combination of optimization
//                     options presented in Section 3.4, found through
//                     exhaustive search over all combinations" (section
//                     5.4); nvcc's code where RegDem did not apply.
//
// A variant whose kernel keeps nvcc's register count (the pass did not
// apply) is nvcc's code and not a candidate of its own.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "backend/passes.h"
#include "config/gpu_config.h"
#include "mech/mechanism.h"
#include "mech/regdem/predictor.h"
#include "mech/regdem/regdem_config.h"

namespace rfsim::regdem {

// The RegDem variants of the search space (the four others come from
// local.h and the base).
std::vector<backend::Variant> searchSpace(const config::GpuConfig& gpu, const RegDemConfig& cfg);

struct Candidate {
  std::string variant;        // "base" for nvcc's code
  uint32_t options = 0;       // performance options enabled (tie-break)
  uint32_t regs = 0;
  uint32_t shared = 0;        // bytes per block, static + dynamic + area
  uint32_t blocks = 0;        // resident blocks per SM
  double occupancy = 0;       // theoretical
  double stall_count = 0;     // Fig. 5
  double estimate = 0;        // eq. 3 (occupancy_max over the candidates)
  double naive = 0;
  std::string code;           // the kernel's machine code, printed (identical code: one trial)
  uint64_t cycles = 0;        // measured (oracle trials), else 0
};

// Every candidate for the launch, estimated. Throws rfsim::Error when nvcc's
// code lacks the kernel.
std::vector<Candidate> candidates(const config::GpuConfig& gpu, const RegDemConfig& cfg, const mech::LaunchInfo& info,
                                  const mech::VariantTable& compiled);
// True for RegDem's own variants (rd_<strategy>_<bits>), the ones select:
// best chooses among.
bool isRegDemVariant(const std::string& variant);
// The variants with distinct code, one per code (the one with the most
// options), for the trials: every candidate's (oracle) or RegDem's own
// (best, regdem_only).
std::vector<std::string> distinctVariants(const std::vector<Candidate>& c, bool regdem_only = false);
// The index of the choice: mode Predictor, Naive, Oracle (by
// Candidate::cycles, a variant taking the cycles of another with the same
// code) or Best (the fewest cycles among RegDem's variants; without any
// measured, the smallest estimate among them; without any RegDem variant,
// nvcc's code).
size_t pick(const std::vector<Candidate>& c, Select mode);

}  // namespace rfsim::regdem
