// `rfsim exec -- ./app args...`: runs an unmodified CUDA application on the
// model. The application, built by nvcc 13 with -cudart shared, loads the
// model's libcudart.so.13 (build/cudart, put first on its loader path); the
// configuration, mechanisms and results folder travel in the environment
// (model/cudart/session.h), so that applications started by their own
// scripts are covered too. docs/cudart.md.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app/commands.h"
#include "common/error.h"
#include "common/folder_lock.h"

namespace rfsim::app {
namespace {

namespace fs = std::filesystem;

bool isElf(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  char m[4] = {};
  f.read(m, 4);
  return f && std::memcmp(m, "\x7f" "ELF", 4) == 0;
}

// Whether the file holds a CUDA runtime of its own: nvcc's host code
// registers its device code through __cudaRegisterFatBinary, whose name the
// static runtime (and any program calling it) carries.
bool holdsCudaRuntime(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  const std::string needle = "__cudaRegisterFatBinary";
  std::string buf, carry;
  buf.resize(1 << 20);
  while (f.read(buf.data(), static_cast<std::streamsize>(buf.size())) || f.gcount() > 0) {
    const std::string chunk = carry + buf.substr(0, static_cast<size_t>(f.gcount()));
    if (chunk.find(needle) != std::string::npos) return true;
    carry = chunk.substr(chunk.size() > needle.size() ? chunk.size() - needle.size() : 0);
  }
  return false;
}

// The executable's path as execvp would find it.
std::string which(const std::string& prog) {
  if (prog.find('/') != std::string::npos) return prog;
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "/usr/bin:/bin";
  for (size_t a = 0; a <= p.size();) {
    size_t b = p.find(':', a);
    if (b == std::string::npos) b = p.size();
    const fs::path cand = fs::path(p.substr(a, b - a)) / prog;
    if (access(cand.c_str(), X_OK) == 0) return cand.string();
    a = b + 1;
  }
  return {};
}

// While the application runs, SIGINT and SIGTERM sent to rfsim are passed
// on to it: it marks its results folder incomplete and ends, and rfsim
// reports how (the terminal's Ctrl-C reaches both anyway).
volatile sig_atomic_t g_child = 0;
void forward(int sig) {
  if (g_child > 0) ::kill(g_child, sig);
}

// Runs argv with `env` added; returns the wait status.
int spawn(const std::vector<std::string>& argv, const std::vector<std::pair<std::string, std::string>>& env,
          std::string* captured = nullptr) {
  int fds[2] = {-1, -1};
  if (captured && pipe(fds) != 0) throw Error(std::string("pipe: ") + std::strerror(errno));
  const pid_t pid = fork();
  if (pid < 0) throw Error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
    if (captured) {
      dup2(fds[1], 1);
      close(fds[0]);
      close(fds[1]);
    }
    std::vector<char*> a;
    for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
    a.push_back(nullptr);
    execvp(a[0], a.data());
    std::fprintf(stderr, "rfsim: error: cannot run %s: %s\n", a[0], std::strerror(errno));
    _exit(127);
  }
  struct sigaction fwd {}, old_int {}, old_term {};
  if (!captured) {
    g_child = pid;
    fwd.sa_handler = forward;
    sigemptyset(&fwd.sa_mask);
    sigaction(SIGINT, &fwd, &old_int);
    sigaction(SIGTERM, &fwd, &old_term);
  }
  if (captured) {
    close(fds[1]);
    char buf[4096];
    for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) captured->append(buf, static_cast<size_t>(n));
    close(fds[0]);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw Error(std::string("waitpid: ") + std::strerror(errno));
  if (!captured) {
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
    g_child = 0;
  }
  return status;
}

}  // namespace

int execCommand(const ExecOptions& o) {
  if (o.argv.empty()) throw Error("exec: which application? rfsim exec [options] -- ./app args...");
  // The configuration is checked here, so a wrong key or mechanism is named before the application runs.
  const config::GpuConfig cfg = loadWithOverrides(o.config);
  const std::string config_file = fs::absolute(resolveConfigPath(o.config.file)).string();
  const fs::path out = fs::absolute(o.output.out.empty() ? defaultOutDir("exec", cfg.name) : o.output.out);
  // The application's CUDA runtime library writes the folder, holding its
  // lock; one that another process holds stops exec here, with its holder named.
  { const FolderLock probe(out); }
  if (fs::exists(out) && !o.output.overwrite)
    throw Error(fmt::format("{} exists (use --overwrite, or another --out)", out.string()));
  const std::string lib_dir = std::string(RFSIM_BUILD_DIR) + "/cudart";
  if (!fs::exists(lib_dir + "/libcudart.so.13"))
    throw Error(fmt::format("{}/libcudart.so.13 is missing: build the project (scripts/setup.sh)", lib_dir));
  const std::string name = o.name.empty() ? fs::path(o.argv.front()).filename().string() : o.name;

  std::vector<std::pair<std::string, std::string>> env;
  const char* ld = std::getenv("LD_LIBRARY_PATH");
  env.push_back({"LD_LIBRARY_PATH", lib_dir + (ld && *ld ? ":" + std::string(ld) : "")});
  env.push_back({"RFSIM_CONFIG", config_file});
  env.push_back({"RFSIM_MECH", o.config.mech});
  std::string sets;
  for (const auto& s : o.config.sets) sets += s + "\n";
  env.push_back({"RFSIM_SET", sets});
  env.push_back({"RFSIM_TIMING", o.timing ? "1" : "0"});
  env.push_back({"RFSIM_OUT", out.string()});
  env.push_back({"RFSIM_OVERWRITE", o.output.overwrite ? "1" : "0"});
  env.push_back({"RFSIM_QUIET", o.quiet ? "1" : "0"});
  env.push_back({"RFSIM_APP_NAME", name});
  env.push_back({"RFSIM_APP_ARGV", nlohmann::json(o.argv).dump()});  // stats.json's run.request
  env.push_back({"RFSIM_LAUNCH_STATS", std::to_string(o.launch_stats)});

  // An ELF executable must load this libcudart: the loader says which one it
  // would take (as ldd does) without running it.
  const std::string exe = which(o.argv.front());
  if (exe.empty()) throw Error(fmt::format("exec: {}: no such program on PATH", o.argv.front()));
  if (access(exe.c_str(), X_OK) != 0)
    throw Error(fmt::format("exec: {}: {}", exe, std::strerror(errno)));  // e.g. No such file or directory
  if (isElf(exe)) {
    std::string listing;
    auto trace = env;
    trace.push_back({"LD_TRACE_LOADED_OBJECTS", "1"});
    spawn({exe}, trace, &listing);
    if (listing.find("libcudart.so.13") == std::string::npos) {
      if (holdsCudaRuntime(exe))
        throw Error(fmt::format("exec: {} does not load libcudart.so.13: it was linked with the static CUDA "
                                "runtime (nvcc's default); rebuild it with nvcc -cudart shared",
                                exe));
      throw Error(fmt::format("exec: {} does not link libcudart.so.13 dynamically and holds no CUDA runtime of its "
                              "own (no __cudaRegisterFatBinary): it makes no CUDA call for the model to run; rfsim "
                              "exec runs CUDA applications built by nvcc with -cudart shared",
                              exe));
    }
    if (listing.find(lib_dir + "/libcudart.so.13") == std::string::npos)
      throw Error(fmt::format("exec: {} would load another libcudart.so.13 than the model's ({}); is it linked "
                              "with an RPATH? The loader said:\n{}",
                              exe, lib_dir, listing));
  }

  // With --overwrite the folder may hold an earlier run's results, which stay
  // until this run's are whole: only a manifest written by this run counts.
  const fs::path manifest = out / "manifest.json";
  std::optional<fs::file_time_type> earlier;
  if (fs::exists(manifest)) earlier = fs::last_write_time(manifest);
  const auto t0 = std::chrono::steady_clock::now();
  const int status = spawn(o.argv, env);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  const std::string how = WIFEXITED(status) ? fmt::format("exited with status {}", code)
                                            : fmt::format("was killed by signal {} ({})", WTERMSIG(status),
                                                          strsignal(WTERMSIG(status)));
  if (!fs::exists(manifest) || (earlier && fs::last_write_time(manifest) == *earlier)) {
    std::cerr << fmt::format("rfsim: error: {} {} after {:.1f} s without writing its results{}{}\n", name, how, wall,
                             fs::exists(out.string() + ".partial")
                                 ? fmt::format(" ({}.partial is incomplete)", out.string())
                                 : code == 127 ? " (it could not be started: see the line above)"
                                               : " (did it make any CUDA call?)",
                             earlier ? fmt::format("; the earlier results in {} are left as they were", out.string())
                                     : "");
    return code ? code : 1;
  }
  std::ifstream f(out / "stats.json");
  const nlohmann::json stats = nlohmann::json::parse(f);
  const nlohmann::json& w = stats.at("workloads").at(name);
  const auto value = [&](const char* k) { return w.at("summary").at(k).at("value").get<double>(); };
  std::cerr << fmt::format("rfsim exec: {} {}; {} kernel launches, {} kernels, {:.0f} {}, {:.1f} s wall; results: {}\n",
                           name, how, value("launches"), w.at("kernels").size(),
                           o.timing ? value("cycles") : value("warp_instrs"), o.timing ? "cycles" : "warp-instrs",
                           wall, out.string());
  if (code) return code;
  if (!w.at("passed").get<bool>()) {
    std::cerr << fmt::format("rfsim: error: {}: {}\n", name, w.at("detail").get<std::string>());
    return 1;
  }
  return 0;
}

}  // namespace rfsim::app
