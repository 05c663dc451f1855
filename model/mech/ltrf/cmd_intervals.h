// `--intervals N`, the analysis LTRF adds to rfsim ptx (the PTX's virtual
// registers) and rfsim backend (each variant's machine program): printed as
// text, and as JSON for rfsim backend --json.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mech/commands.h"

namespace rfsim::ptx {
struct Module;
}

namespace rfsim::mech::ltrf {

// One function's register-intervals of N registers.
struct FunctionIntervals {
  std::string name;
  uint64_t instrs = 0;           // instructions of the function
  uint32_t pass1 = 0, pass2 = 0;  // intervals after Algorithm 1 and after Algorithm 2
  uint64_t regs = 0;             // the intervals' working sets, summed
};

// The prefetches' MRF bank conflicts (16 banks, register mod 16) over a
// module's functions, summed.
struct PrefetchConflicts {
  uint64_t prefetches = 0;     // intervals naming registers
  uint64_t conflict_free = 0;  // ... whose registers lie in different banks
  uint32_t max_conflicts = 0;  // the most registers one bank holds in one interval, minus 1
};

// What the analysis finds in a module: per function, and on a machine
// program the prefetches' bank conflicts before and after renumbering
// (LTRFconf, the paper's Fig. 16) and the code they add.
struct IntervalReport {
  uint32_t n = 0;
  bool machine = false;  // the machine program's registers (else PTX virtual registers)
  std::vector<FunctionIntervals> functions;
  // machine only:
  PrefetchConflicts plain, renumbered;
  uint64_t webs = 0, fixed = 0, moved = 0, off_colour = 0;  // renumbering's live ranges
  uint64_t instrs = 0;                                       // the module's instructions
};

// The module's CFG must be built.
IntervalReport intervalReport(const ptx::Module& m, uint32_t n);
nlohmann::json toJson(const IntervalReport& r);

std::vector<mech::ModuleAnalysis> intervalAnalyses();

}  // namespace rfsim::mech::ltrf
