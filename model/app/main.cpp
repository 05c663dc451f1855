// rfsim: a cycle-level SystemC model of a GPU SM's register file, with the
// register-file mechanisms' RTL co-simulated inside it.
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <systemc>

#include "app/cmd_compare.h"
#include "app/cmd_repro.h"
#include "app/commands.h"
#include "app/mech_commands.h"
#include "common/error.h"
#include "common/stop_signals.h"
#include "mech/mechanism.h"

namespace {

// --max-cycles and --max-instructions: the runaway-kernel caps, as the
// configuration keys they set (appended to --set, so they win over it).
void addRunawayOptions(CLI::App* cmd, rfsim::rt::ConfigOptions& config) {
  cmd->add_option_function<uint64_t>(
         "--max-cycles", [&config](const uint64_t& n) { config.sets.push_back("sim.max_cycles=" + std::to_string(n)); },
         "stop a timing launch that runs more cycles, as a runaway kernel (sim.max_cycles)")
      ->check(CLI::PositiveNumber);
  cmd->add_option_function<uint64_t>(
         "--max-instructions",
         [&config](const uint64_t& n) { config.sets.push_back("sim.max_instructions=" + std::to_string(n)); },
         "stop a launch that issues more warp instructions, as a runaway kernel (sim.max_instructions)")
      ->check(CLI::PositiveNumber);
  cmd->add_option_function<uint32_t>(
         "--threads", [&config](const uint32_t& n) { config.sets.push_back("sim.threads=" + std::to_string(n)); },
         "host threads for a functional launch's thread blocks, and with sim.parallel_sms for the SMs of a timing "
         "launch (sim.threads; 0: the host's cores; default 1); docs/functional.md, \"Parallel blocks\", and "
         "docs/memory.md, \"Parallel SMs\", say which kernels run on one")
      ->check(CLI::NonNegativeNumber);
  // Sampled simulation (docs/sampling.md): the key it sets.
  cmd->add_option_function<std::string>(
         "--sample", [&config](const std::string& m) { config.sets.push_back("sim.sample=" + m); },
         "with --timing: sampled simulation, MODE launches (the default: launches like the ones simulated in "
         "detail run functionally with their cycles), blocks (the blocks of a launch whose IPC is stable; its "
         "error is larger: docs/sampling.md), all (both) or off (sim.sample)")
      ->expected(0, 1)
      ->default_str("launches")
      ->check(CLI::IsMember({"all", "launches", "blocks", "off"}));
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  using namespace rfsim::app;
  rfsim::mech::registerMechanisms();
  CLI::App app{"rfsim: cycle-level GPU register-file simulator (SystemC/TLM-2.0 with Verilated RTL)", "rfsim"};
  app.set_version_flag("--version", "rfsim " RFSIM_VERSION);  // the version stats.json records
  app.require_subcommand(1);

  RunOptions run;
  auto* run_cmd = app.add_subcommand("run", "run CUDA workloads (--workload), functionally or on the GPU timing "
                                            "model (--timing), with mechanisms (--mech)");
  addConfigOptions(run_cmd, run.config);
  addRunawayOptions(run_cmd, run.config);
  addOutputOptions(run_cmd, run.output, "run");
  auto* rtl_on = run_cmd->add_flag("--rtl", run.rtl,
                                   "with --timing: co-simulate the Verilated RTL of the enabled mechanisms that "
                                   "have some (default: each one's own key, mechanisms.<name>.rtl), in lockstep "
                                   "with their C++ reference");
  run_cmd->add_flag("--no-rtl", run.no_rtl, "reference model only, no RTL")->excludes(rtl_on);
  auto* trace_opt = run_cmd->add_option(
      "--trace", run.trace_vcd,
      "with --timing FILE.vcd: SM 0's pipeline waveform into FILE.vcd, and FILE.gtkw; enabled mechanisms with "
      "RTL in the loop write their units' waveforms beside it (files named after FILE; docs/waveforms.md)");
  trace_opt->expected(0, 1);
  run_cmd->add_option("--trace-window", run.trace_window,
                      "with --trace FILE.vcd: record trace cycles FIRST:LAST only (default 0:199999)");
  run_cmd->add_option("--debug-slot", run.debug_slot,
                      "with --timing: print every pipeline event of SM 0's warp slot N on stderr (debugging)")
      ->check(CLI::Range(0, 63));
  run_cmd->add_flag("-q,--quiet", run.quiet, "print only where the results are (and the mechanisms' notes)");
  run_cmd->add_option("-w,--workloads,--workload", run.workload,
                      "run CUDA workloads functionally and check them against their CPU references: "
                      "a name, a comma-separated list, or all (see `rfsim workloads`)");
  run_cmd->add_flag("--large", run.large, "with --workload: the large input sizes");
  run_cmd->add_flag("--virtual-regs", run.virtual_regs,
                    "with --workload: run the PTX's virtual registers instead of the back end's machine program");
  run_cmd->add_flag("--timing", run.timing,
                    "run on the GPU timing model (the configuration's SMs and memory hierarchy): cycles, IPC, "
                    "stalls, energy");
  run_cmd->add_option("--maxrregcount", run.max_regs, "with --workload: the back end's register limit (0: 255)")
      ->check(CLI::Range(0, 255));
  run_cmd->add_option("--code", run.code,
                      "with --workload: run another compilation of the workload, <name>.CODE.ptx beside its PTX "
                      "(inlined: every call nvcc can inline inlined, a link-time-optimised baseline; "
                      "scripts/gen_ptx.sh makes it)");

  auto* list_cmd = app.add_subcommand("workloads", "list the CUDA workloads");
  auto* mechs_cmd = app.add_subcommand("mechanisms", "list the register-file mechanisms, with their status");

  // The mechanisms' own subcommands (mech/commands.h).
  const MechanismSubcommands mech_cmds(app);

  CompareOptions compare;
  auto* compare_cmd = addCompareCommand(app, compare);
  ReportOptions report;
  auto* report_cmd = addReportCommand(app, report);
  ReproOptions repro;
  auto* repro_cmd = addReproCommand(app, repro);

  PtxOptions ptx;
  auto* ptx_cmd = app.add_subcommand("ptx", "parse a PTX file: summary of functions, blocks, loops and calls, or "
                                            "the IR printed back as text");
  ptx_cmd->add_option("file", ptx.file, "PTX file")->required();
  ptx_cmd->add_flag("--print", ptx.print, "print the IR back as PTX text");
  ptx_cmd->add_flag("--annotate", ptx.annotate,
                    "print with each block's predecessors, successors, dominators, post-dominators, loop depth");
  const AnalysisOptions ptx_analyses(ptx_cmd, rfsim::mech::ModuleAnalysis::Of::Ptx);

  CostOptions cost;
  auto* cost_cmd = app.add_subcommand("cost", "hardware cost report: storage, Yosys synthesis on OSU 0.18um, "
                                              "OpenSTA timing");
  addConfigOptions(cost_cmd, cost.config);
  addOutputOptions(cost_cmd, cost.output, "cost");
  cost_cmd->add_flag("-q,--quiet", cost.quiet, "no progress line (it is shown only on a terminal anyway)");
  cost_cmd->add_option("--units-of", cost.units_of,
                       "only the RTL units of these mechanisms, comma-separated (default: every mechanism's)")
      ->delimiter(',');
  cost_cmd->add_flag("--no-synth", cost.no_synth, "analytic storage cost only, no synthesis");
  cost_cmd->add_flag("--no-energy", cost.no_energy,
                     "synthesis and timing without the gate-level energy simulation (about half the run)");
  cost_cmd->add_option("--node-nm", cost.node_nm, "process node the energies are scaled to (first order)")
      ->default_val(12.0)
      ->check(CLI::PositiveNumber);
  cost_cmd->add_option("--vdd", cost.vdd, "supply voltage the energies are scaled to")
      ->default_val(0.9)
      ->check(CLI::PositiveNumber);

  ConfigCmdOptions cfg;
  auto* cfg_cmd = app.add_subcommand("config", "print the resolved configuration, or the reference of every key");
  addConfigOptions(cfg_cmd, cfg.config);
  cfg_cmd->add_flag("--reference", cfg.reference, "print the Markdown reference of every key");
  cfg_cmd->add_flag("--json", cfg.json, "print JSON instead of YAML");
  cfg_cmd->add_flag("--hierarchy", cfg.hierarchy,
                    "list the GPU's module hierarchy (gpu.sm<i>.<unit>, the memory side, the enabled mechanisms' "
                    "units) with where each module's statistics are");

  BackendOptions be;
  auto* be_cmd = app.add_subcommand("backend", "compile PTX through the back end: registers, callee-saved sets, "
                                               "spills, frames, FRU/MaxStackDepth, occupancy, and "
                                               "the comparison with ptxas -v");
  addConfigOptions(be_cmd, be.config);
  be_cmd->add_option("-w,--workloads,--workload", be.workload, "a workload, a comma-separated list, or all");
  be_cmd->add_option("files", be.files, "PTX files");
  be_cmd->add_option("--maxrregcount", be.max_regs, "register limit per thread (0: 255)")
      ->check(CLI::Range(0, 255));
  be_cmd->add_option("--block", be.block, "threads per block for kernels without .reqntid/.maxntid")
      ->capture_default_str()->check(CLI::Range(1, 1024));
  be_cmd->add_flag("--compare-ptxas", be.compare_ptxas,
                   "compare with the ptxas -v report (a workload's .ptxas.txt; FILE.ptxas.txt beside a file)");
  be_cmd->add_option("--json", be.json, "write the report as JSON to this file");
  be_cmd->add_flag("--markdown", be.markdown, "print only the ptxas comparison, as Markdown table rows");
  be_cmd->add_flag("--print", be.print, "print the machine program (PTX text over R0..R254, P0..P6) instead");
  const AnalysisOptions be_analyses(be_cmd, rfsim::mech::ModuleAnalysis::Of::MachineProgram);

  ExecOptions ex;
  auto* exec_cmd = app.add_subcommand("exec", "run an unmodified CUDA application (built by nvcc 13 with -cudart "
                                              "shared) on the model: rfsim exec [options] -- ./app args...");
  addConfigOptions(exec_cmd, ex.config);
  addRunawayOptions(exec_cmd, ex.config);
  addOutputOptions(exec_cmd, ex.output, "exec");
  exec_cmd->add_flag("--timing", ex.timing, "run every launch on the GPU timing model (default: functional)");
  exec_cmd->add_flag("-q,--quiet", ex.quiet, "no line per kernel launch");
  exec_cmd->add_option("--launch-stats", ex.launch_stats,
                       "with --timing: how many launches keep their full statistics in stats.json (every launch "
                       "is in the sums and has its one-line entry)")
      ->capture_default_str();
  exec_cmd->add_option("--name", ex.name, "the application's name in stats.json (default: the program's file name)");
  exec_cmd->add_option("command", ex.argv, "the application and its arguments (after --)")->required();

  // Exit status (README, "Exit status"): 0 done, 1 an error or a failed
  // check, 2 a usage error, 3 an internal error, 130/143 SIGINT/SIGTERM.
  if (argc < 2) {
    std::cerr << app.help() << "rfsim: error: which subcommand? (rfsim --help lists them)\n";
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;  // --help and --version are not errors
  }
  rfsim::installStopHandlers(true);

  run.trace = trace_opt->count() > 0;
  ptx.analyses = ptx_analyses.given();
  be.analyses = be_analyses.given();
  try {
    if (*run_cmd && run.workload.empty())
      throw rfsim::UsageError("run: which workloads? --workload NAME[,NAME] or all (rfsim workloads lists them)" +
                         (mech_cmds.names().empty() ? std::string() : "; the mechanisms add " + mech_cmds.names()));
    if (*run_cmd && !run.workload.empty() && run.trace && (run.trace_vcd.empty() || !run.timing))
      throw rfsim::UsageError("--trace with --workload needs --timing and a file: --trace FILE.vcd");
    if (*run_cmd && !run.trace_window.empty() && run.trace_vcd.empty())
      throw rfsim::UsageError("--trace-window needs --trace FILE.vcd");
    if (*run_cmd) return runWorkloads(run);
    if (const int rc = mech_cmds.runChosen(); rc >= 0) return rc;
    if (*list_cmd) return listWorkloads();
    if (*mechs_cmd) return listMechanisms();
    if (*compare_cmd) return compareCommand(compare, argv[0]);
    if (*report_cmd) return reportCommand(report);
    if (*repro_cmd) return reproCommand(repro, argv[0]);
    if (*ptx_cmd) return ptxCommand(ptx);
    if (*cost_cmd) return costCommand(cost);
    if (*cfg_cmd) return configCommand(cfg);
    if (*be_cmd) return backendCommand(be);
    if (*exec_cmd) return execCommand(ex);
  } catch (const rfsim::UsageError& e) {
    std::cerr << "rfsim: error: " << e.what() << "\n";
    return 2;
  } catch (const rfsim::Error& e) {
    std::cerr << "rfsim: error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "rfsim: internal error: " << e.what() << "\n";
    return 3;
  }
  return 0;
}
