// Finds and runs the external EDA tools of the cost flow (Yosys, OpenSTA).
// Every run keeps its whole output in a log file in the work folder, so a
// failed flow can be read afterwards; a failure throws rfsim::Error naming the
// tool, the log and the log's last error line.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace rfsim::cost {

// Absolute path of `name` on the search path: a colon-separated list of
// folders, $PATH when not given. Throws
//   cost: 'yosys' not found on PATH; run scripts/setup.sh
std::filesystem::path findTool(const std::string& name,
                               const std::optional<std::string>& search_path = std::nullopt);

struct ToolRun {
  std::filesystem::path tool;  // absolute path of the program
  std::vector<std::string> args;
  std::filesystem::path work_dir;  // the program's working folder
  std::filesystem::path log;       // stdout and stderr, relative to work_dir or absolute
};

// Runs the program to completion. Throws when it cannot be started, exits
// non-zero, dies of a signal, or writes a line starting with "ERROR" or
// "Error:" (OpenSTA reports a failed Tcl command and carries on with exit 0).
void runTool(const ToolRun& run);

// The last line of a log that reads as an error ("ERROR", "Error"), or the
// last non-empty line when there is none.
std::string lastErrorLine(const std::string& log_text);

// Whole contents of a text file; throws rfsim::Error naming the file.
std::string readTextFile(const std::filesystem::path& path);

}  // namespace rfsim::cost
