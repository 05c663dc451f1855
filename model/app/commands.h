// Subcommands of the rfsim program. Each returns the process exit status and
// throws rfsim::Error for anything the user can fix.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/gpu_config.h"
#include "mech/commands.h"
#include "runtime/config_options.h"

namespace rfsim::app {

// Loading the configuration, the default results folder and the GPU's
// hierarchy are shared with the CUDA runtime library (runtime/config_options.h).
using rt::ConfigOptions;
using rt::defaultOutDir;
using rt::hierarchyOf;
using rt::loadWithOverrides;
using rt::resolveConfigPath;

// Where a subcommand writes its results folder.
struct OutputOptions {
  std::string out;  // empty: results/<kind>-<config>-<time>
  bool overwrite = false;
};

struct RunOptions {
  ConfigOptions config;
  OutputOptions output;
  bool rtl = false;     // --rtl: force the RTL into the loop
  bool no_rtl = false;  // --no-rtl: reference model only
  bool trace = false;
  bool quiet = false;
  std::string workload;  // --workload NAME[,NAME...] or all: run CUDA workloads functionally
  bool large = false;    // --large: the workloads' large input sizes
  bool virtual_regs = false;  // --virtual-regs: run the PTX's virtual registers, not the back end's machine program
  uint32_t max_regs = 0;      // --maxrregcount for the back end (0: 255)
  std::string code;           // --code NAME: the workload's <stem>.NAME.ptx instead of <stem>.ptx
  bool timing = false;        // --timing: run the workloads on the SM timing model (one SM)
  std::string trace_vcd;      // --trace FILE.vcd with --workload --timing: SM 0's pipeline waveform
  std::string trace_window;   // --trace-window FIRST:LAST (trace cycles)
  int debug_slot = -1;        // --debug-slot N: SM 0's events of warp slot N on stderr
};

struct CostOptions {
  ConfigOptions config;
  OutputOptions output;
  bool quiet = false;  // no progress line
  std::vector<std::string> units_of;  // --units-of: only these mechanisms' units (empty: every one's)
  bool no_synth = false;
  bool no_energy = false;
  double node_nm = 12.0;  // energy scaling target (cost::CostOptions)
  double vdd = 0.9;
};

struct ConfigCmdOptions {
  ConfigOptions config;
  bool reference = false;
  bool json = false;
  bool hierarchy = false;  // list the GPU's module hierarchy instead
};

// A mechanism's analysis of a module that the command line asked for
// (mech::ModuleAnalysis), with its option's value.
struct AnalysisRun {
  const mech::ModuleAnalysis* analysis = nullptr;
  uint64_t value = 0;
};

struct PtxOptions {
  std::string file;
  bool print = false;     // print the IR back as PTX text
  bool annotate = false;  // ... with per-block CFG facts
  std::vector<AnalysisRun> analyses;  // the mechanisms' analyses of the PTX asked for, instead of the summary
};

struct BackendOptions {
  ConfigOptions config;
  std::string workload;            // --workload NAME[,NAME...] or all
  std::vector<std::string> files;  // PTX files
  uint32_t max_regs = 0;           // --maxrregcount (0: no limit but 255)
  uint32_t block = 256;            // threads per block for kernels without .reqntid/.maxntid
  bool compare_ptxas = false;      // also with files: FILE.ptxas.txt beside each
  std::string json;                // write the report as JSON here
  bool markdown = false;           // print the ptxas comparison as a Markdown table only
  bool print = false;              // print the machine program instead of the reports
  std::vector<AnalysisRun> analyses;  // the mechanisms' analyses of each machine program, instead of the reports
};

// rfsim exec: an unmodified CUDA application on the model (docs/cudart.md).
struct ExecOptions {
  ConfigOptions config;
  OutputOptions output;
  bool timing = false;
  bool quiet = false;
  std::string name;               // --name: the application's name in stats.json (default: the program's)
  uint64_t launch_stats = 100;    // --launch-stats: launches that keep their full statistics in stats.json
  std::vector<std::string> argv;  // the command line after --
};

int execCommand(const ExecOptions& o);
int backendCommand(const BackendOptions& o);
int ptxCommand(const PtxOptions& o);
int runWorkloads(const RunOptions& o);
int listWorkloads();
int listMechanisms();
int costCommand(const CostOptions& o);
int configCommand(const ConfigCmdOptions& o);

}  // namespace rfsim::app
