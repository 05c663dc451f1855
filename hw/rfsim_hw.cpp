// rfsim-hw: the workloads' host drivers, unchanged, on a real NVIDIA GPU
// (hw/cuda_device.cpp): every kernel checked against the same CPU reference
// as in the model, and timed. It is how the project's CUDA workloads are
// compared with real hardware (docs/hardware.md); nothing in the model or
// its tests depends on it.
//
// Each workload runs in a child process of its own, so that a kernel fault
// (which leaves a CUDA context unusable) fails that workload alone. The
// parent never initialises CUDA.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "hw/hw_device.h"
#include "workloads/workload.h"

namespace {

using nlohmann::json;
using rfsim::workloads::Workload;

struct Options {
  std::vector<std::string> names;
  std::vector<std::string> tags;
  bool all = false, list = false;
  std::string size = "small";
  std::string code;
  int reps = 5;
  std::string json_out;
  std::string root = ".";
};

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// In the child: load, run once to warm up (the check of that run is the one
// reported; every later run must pass too), then `reps` timed runs.
json runOne(const Workload& w, const Options& o) {
  namespace fs = std::filesystem;
  json r = {{"workload", w.name}, {"size", o.size}, {"code", o.code.empty() ? "base" : o.code}};
  r["device"] = rfsim::hw::deviceName();
  std::vector<std::filesystem::path> mods;
  if (o.code.empty()) {
    for (const auto& m : w.modules()) mods.push_back(fs::path(o.root) / m);
  } else {
    mods.push_back(fs::path(o.root) / fs::path(w.ptx).replace_extension("." + o.code + ".ptx"));
    if (!fs::is_regular_file(mods.back()))
      throw std::runtime_error(fmt::format("{}: no such code ({})", w.name, mods.back().string()));
  }
  rfsim::rt::Device dev;
  r["sms"] = rfsim::hw::smCountRef();
  if (rfsim::hw::maxRegisters() > 0) r["maxrregcount"] = rfsim::hw::maxRegisters();
  dev.loadModules(mods);
  const auto size = o.size == "large" ? rfsim::workloads::Size::Large : rfsim::workloads::Size::Small;
  rfsim::workloads::Check c = w.run(dev, size);
  r["passed"] = c.passed;
  r["detail"] = c.detail;
  auto warm = rfsim::hw::takeLaunchLog();
  r["launches"] = warm.size();
  json kernels = json::object();
  for (const auto& t : warm) {
    auto& k = kernels[t.kernel];
    k["regs"] = t.regs;
    k["local_bytes"] = t.local_bytes;
    k["launches"] = k.value("launches", 0) + 1;
  }
  std::vector<double> totals;
  std::map<std::string, std::vector<double>> per_kernel;
  for (int i = 0; i < o.reps && c.passed; ++i) {
    rfsim::workloads::Check again = w.run(dev, size);
    if (!again.passed) {
      r["passed"] = false;
      r["detail"] = fmt::format("timed run {}: {}", i + 1, again.detail);
      break;
    }
    double sum = 0.0;
    std::map<std::string, double> ks;
    for (const auto& t : rfsim::hw::takeLaunchLog()) {
      sum += t.ms;
      ks[t.kernel] += t.ms;
    }
    totals.push_back(sum);
    for (auto& [k, ms] : ks) per_kernel[k].push_back(ms);
  }
  r["kernel_ms"] = totals;
  r["kernel_ms_median"] = median(totals);
  for (auto& [k, v] : per_kernel) kernels[k]["ms_median"] = median(v);
  r["kernels"] = kernels;
  return r;
}

// Forks, runs `w` in the child, reads its JSON through a pipe.
json runIsolated(const Workload& w, const Options& o) {
  int fd[2];
  if (pipe(fd) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  std::cout.flush();
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    close(fd[0]);
    json r;
    try {
      r = runOne(w, o);
    } catch (const std::exception& e) {
      r = {{"workload", w.name}, {"size", o.size}, {"code", o.code.empty() ? "base" : o.code},
           {"passed", false}, {"error", e.what()}};
    }
    std::string s = r.dump();
    size_t off = 0;
    while (off < s.size()) {
      ssize_t n = write(fd[1], s.data() + off, s.size() - off);
      if (n <= 0) break;
      off += size_t(n);
    }
    close(fd[1]);
    _exit(0);
  }
  close(fd[1]);
  std::string text;
  char buf[65536];
  ssize_t n;
  while ((n = read(fd[0], buf, sizeof buf)) > 0) text.append(buf, size_t(n));
  close(fd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (text.empty())
    return {{"workload", w.name}, {"size", o.size}, {"code", o.code.empty() ? "base" : o.code}, {"passed", false},
            {"error", fmt::format("the run died (wait status {:#x})", status)}};
  return json::parse(text);
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"rfsim-hw: the project's CUDA workloads on a real NVIDIA GPU, checked and timed (docs/hardware.md)"};
  app.add_option("workloads", o.names, "workload names (rfsim workloads lists them)");
  app.add_option("-t,--tag", o.tags, "every workload with this tag (repeatable), e.g. calls");
  app.add_flag("--all", o.all, "every workload");
  app.add_flag("--list", o.list, "list the workloads and exit");
  app.add_option("--size", o.size, "input size")->check(CLI::IsMember({"small", "large"}))->capture_default_str();
  app.add_option("--code", o.code, "another compilation of the same source, e.g. inlined (<name>.inlined.ptx)");
  app.add_option("--reps", o.reps, "timed runs after the warm-up run")->check(CLI::Range(0, 1000))->capture_default_str();
  app.add_option("--json", o.json_out, "write every result to this file (replaced only once complete)");
  app.add_option("--root", o.root, "the repository root the workloads' PTX paths are relative to")->capture_default_str();
  app.add_option("--device", rfsim::hw::deviceOrdinalRef(), "CUDA device ordinal")->capture_default_str();
  app.add_option("--sms", rfsim::hw::smLimitRef(),
                 "run on this many SMs (a green context; the driver rounds up to its granularity, 8 on sm_90); "
                 "0: all")
      ->capture_default_str();
  app.add_option("--maxrregcount", rfsim::hw::maxRegistersRef(),
                 "at most this many registers per thread in every kernel (the JIT's CU_JIT_MAX_REGISTERS, as "
                 "nvcc --maxrregcount and rfsim run --maxrregcount); 0: the JIT's choice")
      ->check(CLI::Range(0, 255))
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  const auto& all = rfsim::workloads::all();
  if (o.list) {
    for (const auto& w : all) fmt::print("{:<24} {}\n", w.name, w.description);
    return 0;
  }
  std::vector<const Workload*> chosen;
  for (const auto& w : all) {
    bool take = o.all || std::find(o.names.begin(), o.names.end(), w.name) != o.names.end();
    for (const auto& t : o.tags) take |= std::find(w.tags.begin(), w.tags.end(), t) != w.tags.end();
    if (take) chosen.push_back(&w);
  }
  for (const auto& n : o.names)
    if (!rfsim::workloads::find(n)) {
      fmt::print(stderr, "rfsim-hw: error: no workload '{}' (--list lists them)\n", n);
      return 2;
    }
  if (chosen.empty()) {
    fmt::print(stderr, "rfsim-hw: error: no workload chosen (name them, or --tag, or --all)\n");
    return 2;
  }
  if (!o.code.empty()) {
    // Only the workloads that have that code.
    std::vector<const Workload*> with;
    for (const Workload* w : chosen)
      if (std::filesystem::is_regular_file(std::filesystem::path(o.root) /
                                           std::filesystem::path(w->ptx).replace_extension("." + o.code + ".ptx")))
        with.push_back(w);
    chosen = with;
  }

  json results = json::array();
  int failed = 0;
  fmt::print("{:<24} {:<6} {:>8} {:>12} {:>5} {:>8}  {}\n", "workload", "check", "launches", "kernel ms", "regs",
             "local B", "detail");
  for (const Workload* w : chosen) {
    json r = runIsolated(*w, o);
    const bool ok = r.value("passed", false);
    failed += !ok;
    int regs = 0, local = 0;
    if (r.contains("kernels"))
      for (auto& [k, v] : r["kernels"].items()) {
        regs = std::max(regs, v.value("regs", 0));
        local = std::max(local, v.value("local_bytes", 0));
      }
    fmt::print("{:<24} {:<6} {:>8} {:>12.4f} {:>5} {:>8}  {}\n", w->name, ok ? "pass" : "FAIL",
               r.value("launches", 0), r.value("kernel_ms_median", 0.0), regs, local,
               r.contains("error") ? r["error"].get<std::string>() : r.value("detail", std::string()));
    std::cout.flush();
    results.push_back(r);
  }
  if (!results.empty() && results[0].contains("device"))
    fmt::print("device: {}, kernels on {} SMs\n", results[0]["device"].get<std::string>(),
               results[0].value("sms", 0));
  if (!o.json_out.empty()) {
    const std::string tmp = o.json_out + ".partial";
    {
      std::ofstream out(tmp);
      out << results.dump(1) << "\n";
      if (!out) {
        fmt::print(stderr, "rfsim-hw: error: cannot write {}\n", tmp);
        return 1;
      }
    }
    std::filesystem::rename(tmp, o.json_out);
  }
  if (failed) fmt::print(stderr, "rfsim-hw: {} of {} workloads failed\n", failed, chosen.size());
  return failed ? 1 : 0;
}
