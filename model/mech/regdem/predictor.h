// RegDem's compile-time performance predictor (paper section 4, Fig. 5 and
// eqs. 2-3; docs/regdem.md): an estimate of a code variant's
// execution time in stall cycles, from the control codes of its machine
// program and its theoretical occupancy, so the variant with the smallest
// estimate can be launched without running the others.
//
//   eq. 2   stall = inst.stall x occupancy x MAX_THROUGHPUT / inst.throughput
//           for every instruction; a wait on a dependency barrier set by a
//           global (shared) access adds GL_MEM_STALL (SH_MEM_STALL) less the
//           stall cycles since the barrier was set, when positive (Fig. 5,
//           lines 7-22; the tracker restarts in every block);
//   loops   a block's stall is multiplied by LOOP_FACTOR once per back edge
//           whose natural loop holds it (lines 23-28);
//   calls   a call adds its callee's estimate ("innermost callees first");
//   sum     stall_count is the sum over all blocks, both sides of every
//           branch (lines 29-31);
//   eq. 3   stall_program = f(occupancy) / f(occupancy_max) x stall_count,
//           where f(x) is the execution time at occupancy x measured on
//           compute-bound microbenchmarks (FTable; the table the titanx
//           configuration uses comes from scripts/regdem_f_occupancy.sh).
//
// The naive scheme the paper compares with (section 5.7) counts the
// annotated stall cycles of the code and nothing else.
//
// The paper's tracker counts a read barrier (a store's) like the write
// barrier of the same access: a wait on it adds the full memory latency.
// This follows the paper; the barrier assignment itself (backend/depctl.h)
// estimates read barriers as clearing after kReadStall cycles.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "ptx/ir.h"
#include "ptx/machine.h"

namespace rfsim::regdem {

struct PredictorParams {
  double occupancy = 1.0;            // theoretical: resident warps / max warps
  double max_throughput = 128;       // MAX_THROUGHPUT (Maxwell: 128 instructions per cycle per SM)
  // Thread instructions per cycle per SM the instruction's unit sustains
  // (GM200: 128 for FP32, 4 for FP64).
  std::function<double(const ptx::Instr&)> throughput;
  // Global (global/local memory), Shared or Other, for the barrier tracker.
  std::function<ptx::mach::DepTiming::Kind(const ptx::Instr&)> kind;
  double gl_mem_stall = 200;         // GL_MEM_STALL
  double sh_mem_stall = 24;          // SH_MEM_STALL
  double loop_factor = 10;           // LOOP_FACTOR
};

struct StallEstimate {
  double stall_count = 0;            // Fig. 5's result (eq. 2, barriers, loops, calls)
  double naive = 0;                  // the annotated stall cycles, summed over the code
  std::vector<double> block_stall;   // per block of the function, after the loop factors
  uint32_t back_edges = 0;
};

// Fig. 5 over machine function `fn` of `m` (control codes assigned: stall
// 0 counts as 1, the least an instruction takes). Throws rfsim::Error for an
// instruction whose throughput is not positive.
StallEstimate estimateStalls(const ptx::Module& m, uint32_t fn, const PredictorParams& p);

// f(occupancy): execution time of a compute-bound kernel at an occupancy,
// relative to full occupancy, linear between the measured points and flat
// beyond the first and last.
class FTable {
 public:
  FTable() = default;
  explicit FTable(std::vector<std::pair<double, double>> points);
  // "occupancy:time,occupancy:time,...", occupancies ascending in (0, 1],
  // times positive. Throws rfsim::Error naming the malformed entry.
  static FTable parse(const std::string& text);
  double at(double occupancy) const;
  const std::vector<std::pair<double, double>>& points() const { return p_; }

 private:
  std::vector<std::pair<double, double>> p_;
};

// eq. 3.
inline double stallProgram(double stall_count, double occupancy, double occupancy_max, const FTable& f) {
  return f.at(occupancy) / f.at(occupancy_max) * stall_count;
}

}  // namespace rfsim::regdem
