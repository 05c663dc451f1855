// Subcommands of the rfsim program. Each returns the process exit status and
// throws rfsim::Error for anything the user can fix.
#pragma once

#include <string>
#include <vector>

namespace rfsim::app {

// Options every subcommand that reads a configuration shares.
struct ConfigOptions {
  std::string file;
  std::vector<std::string> sets;  // --set key=value, applied in order
};

struct RunOptions {
  ConfigOptions config;
  std::string out;  // results folder; empty: results/run-<config>-<time>
  bool overwrite = false;
  bool rtl = false;     // --rtl: force the RTL into the loop
  bool no_rtl = false;  // --no-rtl: reference model only
  bool trace = false;
  bool quiet = false;
};

struct CostOptions {
  ConfigOptions config;
  std::string out;
  bool overwrite = false;
  bool no_synth = false;
};

struct ConfigCmdOptions {
  ConfigOptions config;
  bool reference = false;
  bool json = false;
};

int runCommand(const RunOptions& o);
int costCommand(const CostOptions& o);
int configCommand(const ConfigCmdOptions& o);

// Timestamped default folder under results/.
std::string defaultOutDir(const std::string& kind, const std::string& config_name);

}  // namespace rfsim::app
