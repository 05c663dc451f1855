// The command line the registered mechanisms declare (mech/commands.h),
// bound to the program's: their options on a CLI11 subcommand, and their
// own subcommands run with a loaded configuration and a results folder.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/commands.h"
#include "mech/mechanism.h"

namespace rfsim::app {

// The options of every subcommand that reads a configuration (--config,
// --set, --mech), and of every one that writes a results folder (--out,
// --overwrite; the default folder results/<kind>-<config>-<time>).
void addConfigOptions(CLI::App* cmd, ConfigOptions& c);
void addOutputOptions(CLI::App* cmd, OutputOptions& o, const std::string& kind);

// Options declared as data, added to one subcommand.
class DeclaredOptions {
 public:
  // Adds `o` to `cmd` (its `excludes` must name an option added before).
  void add(CLI::App* cmd, const mech::CommandOption& o);
  // Those given on the command line, once it is parsed.
  mech::OptionValues given() const;

 private:
  struct Bound {
    std::string key;
    CLI::Option* opt = nullptr;
    bool integer = false;
    uint64_t value = 0;
  };
  std::deque<Bound> bound_;  // CLI11 holds pointers into it
};

// The analyses of kind `of` every registered mechanism declares, as options
// of `cmd` (rfsim ptx, rfsim backend).
class AnalysisOptions {
 public:
  AnalysisOptions(CLI::App* cmd, mech::ModuleAnalysis::Of of);
  // The given ones, in registration order, once the command line is parsed.
  std::vector<AnalysisRun> given() const;

 private:
  std::vector<const mech::ModuleAnalysis*> analyses_;
  DeclaredOptions options_;
};

// Every registered mechanism's own subcommands (rfsim <name>), with the
// configuration and results-folder options each takes.
class MechanismSubcommands {
 public:
  explicit MechanismSubcommands(CLI::App& app);
  // The one the command line chose, run; -1 when it chose none of them.
  int runChosen() const;
  // "rfsim a, rfsim b": their names, for messages ("" when there are none).
  std::string names() const;

 private:
  struct Entry {
    const mech::MechanismInfo* info = nullptr;
    const mech::Subcommand* command = nullptr;
    CLI::App* cmd = nullptr;
    ConfigOptions config;
    OutputOptions output;
    DeclaredOptions options;
  };
  std::deque<Entry> entries_;
};

}  // namespace rfsim::app
