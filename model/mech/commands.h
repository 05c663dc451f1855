// What a mechanism adds to the rfsim program's command line
// (MechanismInfo::commands): subcommands of its own (`rfsim <name>`), and
// analyses of a module that `rfsim ptx` and `rfsim backend` run with an
// option of its. app/ loops over the registry and builds them; the options
// are described as data, so a mechanism needs no command-line library.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/gpu_config.h"

namespace rfsim::ptx {
struct Module;
}

namespace rfsim::mech {

// One option: a flag, or an integer in [min, max].
struct CommandOption {
  std::string names;  // as the command line takes them: "--trace", "-q,--quiet"
  std::string help;
  bool integer = false;       // else a flag
  uint64_t min = 0, max = 0;  // an integer's range
  std::string excludes;       // an option of the same command it cannot be given with ("--rtl")
};

// The options given, by their long name without the dashes ("quiet"): a flag
// 1, an integer its value; an option not given is absent.
using OptionValues = std::map<std::string, uint64_t>;
// The long name of an option (the last of its names, without the dashes).
std::string optionKey(const CommandOption& o);

// A run of one of its subcommands, as the command line gave it.
struct CommandRun {
  config::GpuConfig cfg;    // --config, then --set and --mech (its own section read even when it is off)
  std::string config_file;  // the --config value, for messages
  std::string out;          // the results folder: --out, or results/<command>-<config>-<time>
  bool overwrite = false;   // --overwrite
  OptionValues options;     // its own options
};

// A subcommand `rfsim <name>`. Besides its own options it takes those of
// every subcommand that reads a configuration and writes a results folder
// (--config, --set, --mech, --out, --overwrite).
struct Subcommand {
  std::string name;
  std::string help;  // one line, for rfsim --help
  std::vector<CommandOption> options;
  std::function<int(const CommandRun&)> run;  // the process exit status; throws rfsim::Error
};

// An analysis of a module, run instead of the command's own output when its
// option is given: by `rfsim ptx FILE` on the parsed PTX, or by `rfsim
// backend` on each compiled variant's machine program. The module's CFG is
// built; it prints on std::cout. `json` gives the same results as data, for
// rfsim backend --json FILE (unset: the analysis has no JSON form).
struct ModuleAnalysis {
  enum class Of { Ptx, MachineProgram };
  Of of = Of::Ptx;
  CommandOption option;
  std::function<void(const ptx::Module& m, uint64_t value)> run;  // value: the integer, or 1 for a flag
  std::function<nlohmann::json(const ptx::Module& m, uint64_t value)> json = {};
};

struct Commands {
  std::vector<Subcommand> subcommands;
  std::vector<ModuleAnalysis> analyses;
};

}  // namespace rfsim::mech
