// `rfsim compare` and `rfsim report`: their options declared in CLI11 like
// every other subcommand's, checked here, then handed to the Python programs
// that do the work (scripts/compare.py, scripts/report.py; docs/compare.md).
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace rfsim::app {

struct CompareOptions {
  std::string experiment;             // --experiment FILE or NAME (experiments/NAME.yaml)
  std::vector<std::string> groups;    // --groups: the experiment's variant groups to run
  std::vector<std::string> skip;      // --skip: the experiment's variants or groups to leave out
  std::string workloads;              // -w/--workloads
  std::vector<std::string> apps;      // --app 'NAME: COMMAND'
  std::string configs;                // -c/--configs
  std::vector<std::string> variants;  // --variant NAME:SPEC
  std::vector<std::string> sets;      // --set KEY=VALUE
  bool large = false;
  int jobs = 0;     // 0: compare.py's default (the cores)
  std::string out;  // -o/--out
  bool no_report = false;
  bool quiet = false;  // -q: no progress on a terminal
  double timeout = 0;   // 0: none
  std::string figures;  // --figures SCRIPT
  bool dry_run = false;
  bool no_rerun = false;  // --no-rerun: refuse, rather than run again, complete runs that differ from the request
  // Where the runs run: "local" (this machine) or "slurm" (one job array; docs/sweep.md), and sbatch's options.
  std::string engine = "local";
  std::string partition, time, mem;  // --partition, --time, --mem
  int max_parallel = 0;              // --max-parallel N: the array's %N (0: no limit)
  int runs_per_task = 1;             // --runs-per-task N: a batch of short runs per task
  std::vector<std::string> sbatch_args;
  bool detach = false;   // --detach: return once submitted
  std::string collect;   // --collect DIR: wait for DIR's submitted job and write its results
};

struct ReportOptions {
  std::string dir;
  bool partial = false;
};

// Declares the subcommands on app; the options land in o and r.
CLI::App* addCompareCommand(CLI::App& app, CompareOptions& o);
CLI::App* addReportCommand(CLI::App& app, ReportOptions& r);

// Reads the experiment file (if any), merges the command line over it and
// replaces this process with scripts/compare.py (or report.py). Returns only
// on an error starting Python.
int compareCommand(const CompareOptions& o, const char* argv0);
int reportCommand(const ReportOptions& r);

}  // namespace rfsim::app
