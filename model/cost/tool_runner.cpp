#include "cost/tool_runner.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "common/error.h"

namespace fs = std::filesystem;

namespace rfsim::cost {

namespace {

bool isExecutableFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

bool startsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

fs::path findTool(const std::string& name, const std::optional<std::string>& search_path) {
  std::string path;
  if (search_path) {
    path = *search_path;
  } else if (const char* env = std::getenv("PATH")) {
    path = env;
  }
  std::size_t pos = 0;
  while (pos <= path.size() && !path.empty()) {
    std::size_t colon = path.find(':', pos);
    if (colon == std::string::npos) colon = path.size();
    const std::string dir = path.substr(pos, colon - pos);
    // POSIX: an empty entry means the current folder; the cost flow does not
    // want to pick up a tool from wherever it happens to run.
    if (!dir.empty()) {
      const fs::path candidate = fs::path(dir) / name;
      if (isExecutableFile(candidate)) return fs::absolute(candidate);
    }
    pos = colon + 1;
  }
  throw Error(fmt::format("cost: '{}' not found on PATH; run scripts/setup.sh", name));
}

std::string readTextFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("cost: cannot read {}", path.string()));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string lastErrorLine(const std::string& log_text) {
  std::istringstream in(log_text);
  std::string line, last_error, last_nonempty;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    last_nonempty = line;
    if (line.find("ERROR") != std::string::npos || line.find("Error") != std::string::npos)
      last_error = line;
  }
  return last_error.empty() ? last_nonempty : last_error;
}

void runTool(const ToolRun& run) {
  const std::string tool_name = run.tool.filename().string();
  const fs::path log = run.log.is_absolute() ? run.log : run.work_dir / run.log;

  // Everything the child needs is prepared before fork(): between fork and
  // exec only async-signal-safe calls are made.
  std::vector<std::string> argv_store;
  argv_store.push_back(run.tool.string());
  argv_store.insert(argv_store.end(), run.args.begin(), run.args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_store) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string dir = run.work_dir.string();
  const std::string log_path = log.string();

  const int fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    throw Error(fmt::format("cost: cannot create log {}: {}", log_path, std::strerror(errno)));

  const pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    ::close(fd);
    throw Error(fmt::format("cost: cannot start {}: {}", tool_name, std::strerror(err)));
  }
  if (pid == 0) {
    if (::chdir(dir.c_str()) != 0) ::_exit(126);
    ::dup2(fd, STDOUT_FILENO);
    ::dup2(fd, STDERR_FILENO);
    const int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, STDIN_FILENO);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(fd);

  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR)
      throw Error(fmt::format("cost: waiting for {} failed: {}", tool_name, std::strerror(errno)));
  }

  std::string log_text;
  try {
    log_text = readTextFile(log);
  } catch (const Error&) {
  }
  std::string failure;
  if (WIFSIGNALED(status)) {
    failure = fmt::format("killed by signal {}", WTERMSIG(status));
  } else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
    const int rc = WEXITSTATUS(status);
    failure = rc == 126 ? fmt::format("cannot enter {}", dir)
            : rc == 127 ? fmt::format("cannot execute {}", run.tool.string())
                        : fmt::format("exit status {}", rc);
  } else {
    std::istringstream in(log_text);
    std::string line;
    while (std::getline(in, line)) {
      if (startsWith(line, "ERROR") || startsWith(line, "Error:")) {
        failure = "reported an error";
        break;
      }
    }
  }
  if (failure.empty()) return;
  const std::string last = lastErrorLine(log_text);
  throw Error(fmt::format("cost: {} failed ({}); log {}{}{}", tool_name, failure, log_path,
                          last.empty() ? "" : ": ", last));
}

}  // namespace rfsim::cost
