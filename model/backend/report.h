// What the back end did to a module, as tables: per function (registers,
// callee-saved set, FRU, frame, spills, ABI saves), the call graph with its
// register-stack figures (FRU, MaxStackDepth, low/high watermarks: Kang et
// al. §III-A and §III-B, Fig. 4), occupancy per kernel (config/occupancy.h),
// and the comparison with NVIDIA's ptxas -v report for the same PTX
// (ptxas_report.h). The functions here compute rows from a CompiledModule and
// format them as text, Markdown or JSON; they print and read nothing
// themselves (`rfsim backend` does, model/app/cmd_backend.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backend/backend.h"
#include "config/occupancy.h"
#include "backend/ptxas_report.h"
#include "config/gpu_config.h"

namespace rfsim::backend {

// Registers as ranges: {16,17,18,21} -> "R16-R18, R21"; {} -> "-".
std::string registerRanges(const std::vector<uint32_t>& regs);

// ---------------------------------------------------------------------------
// Call graph and register-stack watermarks.

struct CallGraphRow {
  std::string name;
  bool entry = false;
  std::vector<std::string> callees;  // module order
  uint32_t fru = 0;
  uint64_t max_stack_depth = 0;
  bool recursive = false;
  // Kernels only (Kang et al. §III-B, Fig. 4). Low: the kernel's FRU plus the
  // largest FRU of a function it reaches; high: its MaxStackDepth.
  uint64_t low_watermark = 0, high_watermark = 0;
};
std::vector<CallGraphRow> callGraphRows(const CompiledModule& cm);

// ---------------------------------------------------------------------------
// Occupancy per kernel.

struct KernelOccupancy {
  std::string kernel;
  uint32_t threads = 0;        // per block: .reqntid, else .maxntid, else the default
  std::string threads_from;    // "reqntid", "maxntid" or "default"
  uint32_t regs = 0;           // per thread: the kernel's tree_regs
  uint32_t shared = 0;         // static shared bytes (staticSharedBytes)
  std::optional<config::Occupancy> occupancy;  // empty when the kernel cannot launch
  std::string error;                   // why not
};

// Bytes of static .shared memory a kernel's launch needs: the end of the
// last .shared variable its code reaches in the module's layout
// (ptx/analysis/shared_layout.h; the functional model uses the same layout).
// Extern (dynamic) arrays count 0. `m` may be a PTX or a machine program; the
// symbol operands are the same in both.
uint32_t staticSharedBytes(const ptx::Module& m, const ptx::CallGraph& cg, uint32_t kernel);

std::vector<KernelOccupancy> occupancyRows(const CompiledModule& cm, const config::GpuConfig& cfg,
                                           uint32_t default_block = 256);

// ---------------------------------------------------------------------------
// ptxas comparison.

inline constexpr double kPtxasTolerance = 0.25;  // "within ±25 %"

struct PtxasRow {
  std::string name;
  bool entry = false;
  // Registers compared: for a kernel its tree_regs (what its launch
  // allocates; ptxas' count for an entry covers what it calls), for a
  // function its own regs. ptxas prints none for -rdc device functions: -1.
  uint32_t ours_regs = 0;
  int32_t ptxas_regs = -1;
  std::optional<double> ratio;  // ours / ptxas, when ptxas gives a count
  bool within = false;          // |ours - ptxas| <= 25 % of ptxas
  // ptxas counts ABI callee-saved saves as spill stores; so do ours.
  uint32_t ours_spill_store = 0, ours_spill_load = 0;
  uint32_t ptxas_spill_store = 0, ptxas_spill_load = 0;
  uint32_t ours_frame = 0, ptxas_frame = 0;
};

// Blocks per SM from our registers against blocks per SM from ptxas'
// registers, kernel by kernel, on one configuration (each side with its own
// static shared memory; the same block size).
struct OccupancyAgreement {
  std::string config;
  uint32_t kernels = 0, equal = 0;
  std::vector<std::string> differ;  // "kernel: 2 vs 3 blocks"
};

struct PtxasSummary {
  uint32_t kernels = 0;          // kernels with a ptxas register count
  uint32_t kernels_within = 0;
  uint32_t kernels_within50 = 0; // within ±50 %
  std::vector<double> kernel_ratios;  // ours / ptxas per kernel, in order
  std::vector<OccupancyAgreement> occupancy;  // per configuration compared
  uint32_t functions = 0;        // functions (kernels included) found in both
  std::vector<std::string> missing;  // our functions the report does not list
  std::vector<PtxasRow> worst;   // up to 3 kernels farthest from ptxas, farthest first
  // Every function ptxas reports spill stores for spills in ours too.
  bool spill_agreement = true;
  std::vector<std::string> spill_disagreements;  // ptxas spills, we do not
  std::vector<std::string> spill_extra;          // we spill, ptxas does not
};

struct PtxasComparison {
  std::vector<PtxasRow> rows;  // our functions in module order, those ptxas lists
  PtxasSummary summary;
};
// `occupancy_configs`: configurations on which to compare blocks per SM
// (none: no occupancy agreement); kernels without .reqntid/.maxntid launch
// `default_block` threads.
PtxasComparison comparePtxas(const CompiledModule& cm, const PtxasReport& ptxas,
                             const std::vector<const config::GpuConfig*>& occupancy_configs = {},
                             uint32_t default_block = 256);
// The median of the kernels' ratios (ours / ptxas), and the geometric-mean
// deviation exp(mean |ln ratio|) - 1: one number for how far the counts are
// either way (0: every kernel exact; 0.25: typically 25 % over or 20 %
// under). Both 0 without kernels.
double medianRatio(const PtxasSummary& s);
double geomeanDeviation(const PtxasSummary& s);
// Several modules' summaries as one (kernel names prefixed by their labels).
PtxasSummary mergeSummaries(const std::vector<std::pair<std::string, PtxasSummary>>& all);
std::string summaryLine(const PtxasSummary& s);

// ---------------------------------------------------------------------------
// Formatting: fixed-width text tables, one row per function or kernel.

std::string functionTable(const CompiledModule& cm);
std::string callGraphTable(const CompiledModule& cm);
std::string occupancyTable(const std::vector<KernelOccupancy>& rows);
std::string ptxasTable(const PtxasComparison& c);
// One Markdown table row per compared function, led by `workload`; the
// header is ptxasMarkdownHeader().
std::string ptxasMarkdownHeader();
std::string ptxasMarkdownRows(const std::string& workload, const PtxasComparison& c);

// Everything about one module as JSON (functions, call graph, occupancy,
// and the ptxas comparison when given).
nlohmann::json reportJson(const CompiledModule& cm, const std::vector<KernelOccupancy>& occ,
                          const PtxasComparison* ptxas);

}  // namespace rfsim::backend
