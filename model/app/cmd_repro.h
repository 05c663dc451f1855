// `rfsim repro PAPER`: one command per paper's reproduction. It replaces
// this process with the paper's script (scripts/<paper>_repro.sh), which
// runs the paper's experiment through rfsim compare with this binary and
// writes its figures, tables and the numbers its page in docs/ quotes.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace rfsim::app {

struct ReproOptions {
  std::string paper;               // cars, regdem, ltrf or r2d2
  bool quick = false;              // --quick: a few workloads, small inputs
  std::string out;                 // -o/--out
  int jobs = 0;                    // -j: runs at once (0: the script's default)
  std::vector<std::string> extra;  // after --: more arguments for the script
};

CLI::App* addReproCommand(CLI::App& app, ReproOptions& o);
// Returns only on an error starting the script.
int reproCommand(const ReproOptions& o, const char* argv0);

}  // namespace rfsim::app
