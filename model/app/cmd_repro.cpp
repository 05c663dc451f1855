#include "app/cmd_repro.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "common/error.h"

namespace rfsim::app {

namespace fs = std::filesystem;

namespace {

// The papers, their scripts and the pages that quote their numbers.
struct Paper {
  const char* name;
  const char* title;
  const char* page;
};
constexpr Paper kPapers[] = {
    {"cars", "CARS, Concurrency-Aware Register Stacks (Kang et al.)", "docs/cars-repro.md"},
    {"regdem", "RegDem, shared-memory register spilling (Sakdhnagool et al.)", "docs/regdem.md"},
    {"ltrf", "LTRF, the latency-tolerant register file (Sadrosadati et al.)", "docs/ltrf.md"},
    {"r2d2", "R2D2, redundancy removed by linearity (Ha et al.)", "docs/r2d2.md"},
};

std::string self(const char* argv0) {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, size_t(n)) : std::string(argv0);
}

}  // namespace

CLI::App* addReproCommand(CLI::App& app, ReproOptions& o) {
  std::string names;
  for (const Paper& p : kPapers) names += std::string(names.empty() ? "" : ", ") + p.name;
  auto* cmd = app.add_subcommand(
      "repro", "reproduce a paper's figures and tables (" + names +
                   "): its experiment through rfsim compare, then its figures beside the paper's numbers");
  std::vector<std::string> choices;
  for (const Paper& p : kPapers) choices.emplace_back(p.name);
  cmd->add_option("paper", o.paper, "the paper: " + names)->required()->check(CLI::IsMember(choices));
  cmd->add_flag("--quick", o.quick,
                "a few workloads at the small inputs (a couple of minutes): the same kinds of figures, tables and "
                "numbers as the full run, for a check, not for the paper's figures");
  cmd->add_option("-o,--out", o.out,
                  "output folder; a second repro into it resumes (default: results/<paper>-repro-<date>-<time>)");
  cmd->add_option("-j,--jobs", o.jobs, "runs at once (default: the cores)")->check(CLI::PositiveNumber);
  cmd->add_option("extra", o.extra,
                  "after --: more options for the paper's script (scripts/<paper>_repro.sh --help lists them)");
  cmd->footer(
      "Each paper's page in docs/ says what the full run takes and which of its runs are sampled.");
  return cmd;
}

int reproCommand(const ReproOptions& o, const char* argv0) {
  const Paper* paper = nullptr;
  for (const Paper& p : kPapers)
    if (o.paper == p.name) paper = &p;
  if (paper == nullptr) throw UsageError(fmt::format("repro: no paper named '{}'", o.paper));
  const fs::path script = fs::path(RFSIM_SOURCE_DIR) / "scripts" / (o.paper + "_repro.sh");
  if (!fs::is_regular_file(script))
    throw Error(fmt::format("repro {}: {} is missing (the repository the binary was built from has moved?)",
                            o.paper, script.string()));
  std::vector<std::string> a{"/bin/bash", script.string()};
  if (o.quick) a.push_back("--quick");
  if (!o.out.empty()) a.insert(a.end(), {"-o", o.out});
  if (o.jobs > 0) a.insert(a.end(), {"-j", std::to_string(o.jobs)});
  a.insert(a.end(), o.extra.begin(), o.extra.end());
  // The script runs this binary, with no set-up or build of its own.
  const std::string bin = self(argv0);
  ::setenv("RFSIM", bin.c_str(), 1);
  std::cerr << fmt::format("rfsim repro: {}{}; the paper's numbers beside ours are in {}\n", paper->title,
                           o.quick ? ", quick check" : "", paper->page);
  std::vector<char*> c;
  for (auto& s : a) c.push_back(s.data());
  c.push_back(nullptr);
  std::cout.flush();
  execv(c[0], c.data());
  std::cerr << "rfsim: error: cannot run /bin/bash (" << std::strerror(errno) << ")\n";
  return 1;
}

}  // namespace rfsim::app
