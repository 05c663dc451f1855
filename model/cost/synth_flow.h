// Synthesis and static timing of a unit of RTL (rtl/<module>.sv) on the OSU
// 0.18 um standard cells: Yosys 0.23 maps it, OpenSTA times it. The flow and
// its constraints are explained in docs/cost.md.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace rfsim::cost {

// Input capacitance of the OSU018 INVX1 (pin A, pF; the liberty's unit).
inline constexpr double kInvx1InputPf = 0.00932456;
// Every primary output drives four INVX1 inputs: a fan-out of four.
inline constexpr double kOutputLoadPf = 4 * kInvx1InputPf;
// NAND2X1 area of the OSU018 library: one gate equivalent.
inline constexpr double kNand2AreaUm2 = 24.0;

struct SynthParams {
  std::string module;                 // rtl/<module>.sv, the top module
  std::vector<std::string> packages;  // files of rtl/ read before it
  std::vector<std::pair<std::string, uint64_t>> parameters;  // as chparam sets them
};

struct FlowOptions {
  std::filesystem::path work_dir;  // scripts, logs, netlist and reports go here
  std::filesystem::path liberty;
  std::filesystem::path rtl_dir;   // holds the module's .sv and its packages
  double clock_period_ns = 10.0;
  std::optional<std::string> tool_search_path;  // $PATH when not given
  std::function<void(const std::string&)> progress;  // told when the timing step starts (may be empty)
};

struct SynthResult {
  std::string module;
  std::vector<std::pair<std::string, uint64_t>> parameters;  // as given to chparam
  uint64_t flops = 0;
  uint64_t cells = 0;  // mapped standard cells
  std::map<std::string, uint64_t> cells_by_type;
  uint64_t transistors = 0;  // `stat -tech cmos` after legalising flops to plain DFFs
  bool transistors_complete = false;
  uint32_t logic_levels = 0;  // `ltp -noff` on generic gates
  double area_um2 = 0.0;
  double gate_equivalents = 0.0;  // area / NAND2X1 area
  double clock_period_ns = 0.0;
  double critical_path_ns = 0.0;  // data arrival time at the endpoint
  double slack_ns = 0.0;
  double setup_ns = 0.0;          // period - required time (endpoint setup)
  std::string critical_start;     // "op_warp_i[5] (input port)"
  std::string critical_end;       // "base_q[37][0] (flop _47031_)"
  uint32_t critical_path_cells = 0;
  double fmax_mhz = 0.0;          // 1 / (period - slack)
  double output_load_pf = kOutputLoadPf;
  std::string liberty;  // file name of the cell library
  std::string yosys_version;
  std::string sta_version;
  std::filesystem::path work_dir;
};

// Text of the generated files, written into the work folder by runSynthesis.
std::string yosysScript(const SynthParams& p, const std::filesystem::path& rtl_dir,
                        const std::filesystem::path& liberty);
std::string abcConstraints();
std::string staScript(const SynthParams& p, const std::filesystem::path& liberty, double period_ns);

// Checks the tools and the liberty file, then runs Yosys and OpenSTA in
// o.work_dir (created if missing). Throws rfsim::Error on any failure.
SynthResult runSynthesis(const SynthParams& p, const FlowOptions& o);

}  // namespace rfsim::cost
