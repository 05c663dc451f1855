// `rfsim compare` and `rfsim report`: the options in CLI11, an experiment file
// (experiments/*.yaml, docs/compare.md "Experiment files") read and merged
// with the command line, then scripts/compare.py or scripts/report.py run
// with Debian's python3 in place of this process.
#include "app/cmd_compare.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <regex>
#include <set>
#include <utility>

#include <unistd.h>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "common/error.h"

namespace rfsim::app {
namespace {

namespace fs = std::filesystem;

// One variant of an experiment: its name, its spec (compare's --variant
// NAME:SPEC) and the group it belongs to ("" for an ungrouped one).
struct ExperimentVariant {
  std::string name, spec, group;
  int line = 0;
};

struct Experiment {
  std::string file;
  std::vector<std::string> configs, workloads;
  std::vector<std::pair<std::string, std::string>> sets;  // in the file's order
  bool large = false;
  std::vector<ExperimentVariant> variants;  // in the file's order, groups expanded in place
  std::vector<std::string> groups;          // every group, in the file's order
  std::vector<std::string> default_groups;  // run when --groups names none (default: every group)
  std::string figures, out;
};

const std::regex kName{"[A-Za-z0-9][A-Za-z0-9._+-]*"};

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const YAML::Node& at, const std::string& key, const std::string& why) const {
    const int line = at.Mark().line >= 0 ? at.Mark().line + 1 : 0;
    throw Error(fmt::format("{}{}: {}: {}", file_, line ? fmt::format(":{}", line) : "", key, why));
  }

  std::string text(const YAML::Node& n, const std::string& key) const {
    if (!n.IsScalar()) fail(n, key, "expected a text");
    return n.Scalar();
  }

  // A comma-separated text, or a list of texts.
  std::vector<std::string> list(const YAML::Node& n, const std::string& key) const {
    std::vector<std::string> out;
    if (n.IsSequence()) {
      for (const auto& item : n) out.push_back(text(item, key));
    } else {
      std::string s = text(n, key), item;
      for (char c : s + ",") {
        if (c != ',') {
          item += c;
        } else {
          const auto b = item.find_first_not_of(' '), e = item.find_last_not_of(' ');
          if (b != std::string::npos) out.push_back(item.substr(b, e - b + 1));
          item.clear();
        }
      }
    }
    if (out.empty()) fail(n, key, "expected one item at least");
    return out;
  }

  // NAME: SPEC, checked as compare checks --variant (docs/compare.md "Variants").
  ExperimentVariant variant(const YAML::Node& k, const YAML::Node& v, const std::string& key,
                            const std::string& group) const {
    const std::string name = k.Scalar();
    if (!std::regex_match(name, kName))
      fail(k, key, "a variant's name is letters, digits, '.', '_', '+', '-' (it names a folder)");
    if (name == "base") fail(k, key, "'base' is the baseline, always run; choose another name");
    const std::string spec = v.IsNull() ? "" : text(v, key);
    std::string item;
    for (char c : spec + ",") {
      if (c != ',') {
        item += c;
        continue;
      }
      const auto b = item.find_first_not_of(' '), e = item.find_last_not_of(' ');
      item = b == std::string::npos ? "" : item.substr(b, e - b + 1);
      const bool ok = item.empty() || std::regex_match(item, std::regex{"\\+[A-Za-z0-9_]+"}) ||
                      std::regex_match(item, std::regex{"@[a-z0-9_-]+"}) ||
                      std::regex_match(item, std::regex{"[A-Za-z0-9_.]+=.+"});
      if (!ok) fail(v, key, fmt::format("'{}' is neither +mechanism, key=value nor @code", item));
      item.clear();
    }
    return {name, spec, group, v.Mark().line + 1};
  }

  Experiment read() {
    YAML::Node root;
    try {
      root = YAML::LoadFile(file_);
    } catch (const YAML::BadFile&) {
      throw Error(fmt::format("{}: cannot read the experiment file", file_));
    } catch (const YAML::ParserException& e) {
      throw Error(fmt::format("{}:{}: not valid YAML: {}", file_, e.mark.line + 1, e.msg));
    }
    if (!root.IsMap()) throw Error(fmt::format("{}: an experiment file is a mapping of keys (docs/compare.md)", file_));
    static const std::set<std::string> known{"description", "configs", "workloads",      "large", "set",
                                             "variants",    "figures", "default_groups", "out"};
    Experiment e;
    e.file = file_;
    for (const auto& kv : root) {
      const std::string key = kv.first.Scalar();
      if (!known.count(key))
        fail(kv.first, key,
             "unknown key (an experiment has description, configs, workloads, large, set, variants, "
             "default_groups, figures, out)");
    }
    for (const char* required : {"workloads", "variants"})
      if (!root[required]) throw Error(fmt::format("{}: {}: missing (docs/compare.md)", file_, required));
    if (root["configs"]) e.configs = list(root["configs"], "configs");
    e.workloads = list(root["workloads"], "workloads");
    if (const YAML::Node n = root["large"]) {
      if (!n.IsScalar() || (n.Scalar() != "true" && n.Scalar() != "false")) fail(n, "large", "expected true or false");
      e.large = n.Scalar() == "true";
    }
    if (const YAML::Node n = root["set"]) {
      if (!n.IsMap()) fail(n, "set", "expected a mapping of configuration keys to values");
      for (const auto& kv : n) {
        const std::string key = kv.first.Scalar();
        if (!std::regex_match(key, std::regex{"[A-Za-z0-9_.]+"}))
          fail(kv.first, "set." + key, "not a configuration key");
        e.sets.emplace_back(key, text(kv.second, "set." + key));
      }
    }
    const YAML::Node vs = root["variants"];
    if (!vs.IsMap()) fail(vs, "variants", "expected a mapping of NAME: SPEC (or of group: {NAME: SPEC, ...})");
    // A name may come again in another group, with the same spec or another
    // (alternative groups: a paper's figure with and without a baseline unit);
    // only two chosen at once must agree (chosenVariants).
    for (const auto& kv : vs) {
      const std::string name = kv.first.Scalar(), key = "variants." + name;
      if (!kv.second.IsMap()) {
        for (const auto& w : e.variants)
          if (w.name == name && w.group.empty())
            fail(kv.first, key, fmt::format("defined twice (first at line {})", w.line));
        e.variants.push_back(variant(kv.first, kv.second, key, ""));
        continue;
      }
      if (!std::regex_match(name, kName)) fail(kv.first, key, "a group's name is letters, digits, '.', '_', '+', '-'");
      if (std::find(e.groups.begin(), e.groups.end(), name) != e.groups.end())
        fail(kv.first, key, "a second group of that name");
      e.groups.push_back(name);
      if (kv.second.size() == 0) fail(kv.second, key, "an empty group");
      for (const auto& gv : kv.second) {
        const std::string gkey = key + "." + gv.first.Scalar();
        if (gv.second.IsMap()) fail(gv.second, gkey, "groups do not nest");
        e.variants.push_back(variant(gv.first, gv.second, gkey, name));
      }
    }
    if (const YAML::Node n = root["default_groups"]) {
      e.default_groups = list(n, "default_groups");
      for (const auto& g : e.default_groups)
        if (std::find(e.groups.begin(), e.groups.end(), g) == e.groups.end())
          fail(n, "default_groups", fmt::format("'{}' is not a group of variants", g));
    }
    if (const YAML::Node n = root["figures"]) {
      e.figures = text(n, "figures");
      if (!fs::is_regular_file(fs::path(RFSIM_SOURCE_DIR) / e.figures))
        fail(n, "figures", fmt::format("{}: no such script in the repository", e.figures));
    }
    if (const YAML::Node n = root["out"]) e.out = text(n, "out");
    if (const YAML::Node n = root["description"]) text(n, "description");
    return e;
  }

 private:
  std::string file_;
};

// --experiment: a file, or the name of one in experiments/.
std::string experimentFile(const std::string& arg) {
  if (fs::is_regular_file(arg)) return arg;
  const fs::path dir = fs::path(RFSIM_SOURCE_DIR) / "experiments";
  if (arg.find('/') == std::string::npos) {
    const fs::path p = dir / (arg.size() > 5 && arg.substr(arg.size() - 5) == ".yaml" ? arg : arg + ".yaml");
    if (fs::is_regular_file(p)) return p.string();
  }
  std::string known;
  std::set<std::string> stems;
  if (fs::is_directory(dir))
    for (const auto& f : fs::directory_iterator(dir))
      if (f.path().extension() == ".yaml") stems.insert(f.path().stem().string());
  for (const auto& s : stems) known += (known.empty() ? "" : ", ") + s;
  throw Error(fmt::format("--experiment {}: no such file, nor experiments/{}.yaml (experiments: {})", arg, arg, known));
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

// The names a comma-separated option lists.
std::vector<std::string> items(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (const auto& a : args) {
    std::string item;
    for (char c : a + ",") {
      if (c != ',') {
        item += c;
      } else if (!item.empty()) {
        out.push_back(item);
        item.clear();
      }
    }
  }
  return out;
}

std::string timestamp() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", std::localtime(&t));
  return buf;
}

// The experiment's variants that run: the ungrouped ones and those of the
// chosen groups, less the skipped, each once, in the file's order.
std::vector<std::string> chosenVariants(const Experiment& e, const CompareOptions& o) {
  const std::vector<std::string> wanted = items(o.groups), skip = items(o.skip);
  for (const auto& g : wanted)
    if (std::find(e.groups.begin(), e.groups.end(), g) == e.groups.end())
      throw Error(fmt::format("--groups {}: {} has no such group (groups: {})", g, e.file,
                              e.groups.empty() ? "none" : join(e.groups)));
  for (const auto& s : skip) {
    const bool known = std::find(e.groups.begin(), e.groups.end(), s) != e.groups.end() ||
                       std::any_of(e.variants.begin(), e.variants.end(), [&](auto& v) { return v.name == s; });
    if (!known) throw Error(fmt::format("--skip {}: {} has no such variant or group", s, e.file));
  }
  const std::vector<std::string>& groups = !wanted.empty()             ? wanted
                                           : !e.default_groups.empty() ? e.default_groups
                                                                       : e.groups;
  auto has = [](const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  std::vector<std::string> out;
  std::vector<const ExperimentVariant*> seen;
  for (const auto& v : e.variants) {
    if (!v.group.empty() && !has(groups, v.group)) continue;
    if (has(skip, v.name) || (!v.group.empty() && has(skip, v.group))) continue;
    // The same variant in two chosen groups runs once, where it first comes.
    auto first = std::find_if(seen.begin(), seen.end(), [&](auto* w) { return w->name == v.name; });
    if (first == seen.end()) {
      seen.push_back(&v);
      out.push_back(v.name + ":" + v.spec);
    } else if ((*first)->spec != v.spec) {
      throw Error(
          fmt::format("{}:{}: variants.{}.{}: another spec than at line {} (variants.{}.{}), and both groups "
                      "are chosen",
                      e.file, v.line, v.group, v.name, (*first)->line, (*first)->group, (*first)->name));
    }
  }
  return out;
}

[[noreturn]] void usage(const std::string& why) { throw Error("compare: " + why); }

int execPython(const std::string& script, const std::vector<std::string>& args) {
  std::vector<std::string> a{"/usr/bin/python3", std::string(RFSIM_SOURCE_DIR) + "/scripts/" + script};
  a.insert(a.end(), args.begin(), args.end());
  std::vector<char*> c;
  for (auto& s : a) c.push_back(s.data());
  c.push_back(nullptr);
  std::cout.flush();
  execv(c[0], c.data());
  std::cerr << "rfsim: error: cannot run /usr/bin/python3 (" << std::strerror(errno)
            << "); scripts/setup.sh installs python3 and python3-matplotlib\n";
  return 1;
}

}  // namespace

CLI::App* addCompareCommand(CLI::App& app, CompareOptions& o) {
  auto* cmd = app.add_subcommand("compare",
                                 "workloads x configurations x variants, each run in its own process, "
                                 "compared in compare.json/.csv and a report (docs/compare.md)");
  cmd->add_option("--experiment", o.experiment,
                  "an experiment file (experiments/NAME.yaml, or its NAME): its configurations, workloads, keys, "
                  "variants and figure script; the options below add to it or replace its values");
  cmd->add_option("--groups", o.groups,
                  "with --experiment: run these groups of its variants only (default: its "
                  "default_groups, else every group)")
      ->delimiter(',');
  cmd->add_option("--skip", o.skip, "with --experiment: leave out these of its variants or groups")->delimiter(',');
  cmd->add_option("-w,--workloads,--workload", o.workloads,
                  "workload names or tags, comma-separated (rfsim workloads lists both), or all; NAME@large or "
                  "NAME@small gives one workload its own input size");
  cmd->add_option("--app", o.apps,
                  "'NAME: COMMAND': an unmodified CUDA application as a workload, run by rfsim exec in the folder "
                  "compare was started from (repeatable; docs/cudart.md)");
  cmd->add_option("-c,--configs,--config", o.configs,
                  "configurations, comma-separated: names (v100, titanv, maxwell, titanx, h100, h200) or YAML files (default: "
                  "v100)");
  cmd->add_option("--variant", o.variants,
                  "NAME:SPEC, a variant compared with the baseline; SPEC is comma-separated +mech, key=value or "
                  "@code items, e.g. on:+MECH (a name `rfsim mechanisms` lists) or big-l1:l1d.size_kb=64 "
                  "(repeatable)");
  cmd->add_option("--set", o.sets, "KEY=VALUE for every run, the baseline's included (repeatable)");
  cmd->add_flag("--large", o.large, "the workloads' large input sizes");
  cmd->add_option("-j,--jobs", o.jobs, "runs at once (default: the cores)")->check(CLI::PositiveNumber);
  cmd->add_option("-o,--out", o.out,
                  "output folder; a second compare into it resumes (default: the experiment's out-<date>-<time>)");
  cmd->add_flag("--no-report", o.no_report, "write compare.json and compare.csv, not the report");
  cmd->add_flag("-q,--quiet", o.quiet,
                "no progress on a terminal (the bar with the runs in flight, the report and figure steps); a pipe "
                "or a log never gets them");
  cmd->add_option("--timeout", o.timeout, "stop a run that takes longer than this many seconds")
      ->check(CLI::PositiveNumber);
  cmd->add_option(
      "--figures", o.figures,
      "a figure script, a path in the repository (e.g. scripts/cars_figures.py), run on the folder after the "
      "report as SCRIPT DIR --rfsim RFSIM");
  cmd->add_flag("--dry-run", o.dry_run, "print each run's command and write nothing");
  cmd->add_flag("--no-rerun", o.no_rerun,
                "when a complete run in the folder was asked something else (another variant definition, size, "
                "configuration or rfsim version), list the differences and stop instead of running it again");
  const std::string slurm = "SLURM (--engine slurm, docs/sweep.md)";
  cmd->add_option("--engine", o.engine,
                  "where the runs run: local (this machine, -j at once) or slurm (one sbatch job array, a task per "
                  "run, on a shared file system)")
      ->check(CLI::IsMember({"local", "slurm"}))
      ->group(slurm);
  cmd->add_option("--partition", o.partition, "the array's partition (sbatch --partition)")->group(slurm);
  cmd->add_option("--time", o.time, "each task's time limit (sbatch --time, e.g. 30 or 1:00:00)")->group(slurm);
  cmd->add_option("--mem", o.mem, "each task's memory (sbatch --mem, e.g. 4G)")->group(slurm);
  cmd->add_option("--max-parallel", o.max_parallel, "tasks running at once (the array's %N)")
      ->check(CLI::PositiveNumber)
      ->group(slurm);
  cmd->add_option("--runs-per-task", o.runs_per_task,
                  "runs one task makes, one after the other: fewer tasks for many short runs (default 1)")
      ->check(CLI::PositiveNumber)
      ->group(slurm);
  cmd->add_option("--sbatch-arg", o.sbatch_args,
                  "one more sbatch argument, e.g. --sbatch-arg=--account=lab (repeatable)")
      ->allow_extra_args(false)
      ->group(slurm);
  cmd->add_flag("--detach", o.detach, "return once the array is submitted; --collect DIR finishes")->group(slurm);
  cmd->add_option("--collect", o.collect,
                  "DIR: wait for the job a --detach compare submitted into DIR, then write compare.json and the "
                  "report as that compare would have (no other option needed)")
      ->group(slurm);
  return cmd;
}

CLI::App* addReportCommand(CLI::App& app, ReportOptions& r) {
  auto* cmd = app.add_subcommand("report", "regenerate the report (Markdown, HTML, plots) of a compare folder");
  cmd->add_option("dir", r.dir, "the folder rfsim compare -o wrote")->required();
  cmd->add_flag("--partial", r.partial,
                "report the complete runs when some are incomplete or failed, and list the others");
  return cmd;
}

int compareCommand(const CompareOptions& o, const char* argv0) {
  if (!o.collect.empty()) {
    char self[4096];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    std::vector<std::string> a{"--rfsim", n > 0 ? std::string(self, size_t(n)) : std::string(argv0), "--collect",
                               o.collect};
    if (o.quiet) a.push_back("--quiet");
    return execPython("compare.py", a);
  }
  const bool slurmOnly = !o.partition.empty() || !o.time.empty() || !o.mem.empty() || o.max_parallel > 0 ||
                         o.runs_per_task != 1 || !o.sbatch_args.empty() || o.detach;
  if (o.engine != "slurm" && slurmOnly)
    usage("--partition, --time, --mem, --max-parallel, --runs-per-task, --sbatch-arg and --detach need --engine slurm");
  Experiment e;
  if (!o.experiment.empty()) {
    e = Reader(experimentFile(o.experiment)).read();
  } else if (!o.groups.empty() || !o.skip.empty()) {
    usage("--groups and --skip choose among an experiment's variants: they need --experiment");
  }
  std::vector<std::string> a;
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  a.push_back("--rfsim");
  a.push_back(n > 0 ? std::string(self, size_t(n)) : std::string(argv0));
  if (!o.experiment.empty()) a.insert(a.end(), {"--from-experiment", fs::absolute(e.file).string()});

  const std::string workloads = !o.workloads.empty() ? o.workloads : join(e.workloads);
  if (workloads.empty() && o.apps.empty()) usage("which workloads? -w NAMES and/or --app 'NAME: COMMAND'");
  if (!workloads.empty()) a.insert(a.end(), {"-w", workloads});
  for (const auto& app : o.apps) a.insert(a.end(), {"--app", app});
  const std::string configs = !o.configs.empty() ? o.configs : join(e.configs);
  if (!configs.empty()) a.insert(a.end(), {"-c", configs});
  // A --set of a key the experiment sets replaces its value there.
  std::vector<std::pair<std::string, std::string>> sets = e.sets;
  for (const auto& s : o.sets) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0) usage(fmt::format("--set {}: expected KEY=VALUE", s));
    const std::string key = s.substr(0, eq);
    auto it = std::find_if(sets.begin(), sets.end(), [&](auto& kv) { return kv.first == key; });
    if (it != sets.end())
      it->second = s.substr(eq + 1);
    else
      sets.emplace_back(key, s.substr(eq + 1));
  }
  for (const auto& [k, v] : sets) a.insert(a.end(), {"--set", k + "=" + v});
  if (o.large || e.large) a.push_back("--large");
  if (o.jobs > 0) a.insert(a.end(), {"-j", std::to_string(o.jobs)});
  std::string out = o.out;
  if (out.empty() && !e.out.empty()) out = e.out + "-" + timestamp();
  if (out.empty()) usage("-o/--out DIR is required (the experiment names no out)");
  a.insert(a.end(), {"-o", out});
  if (o.no_report) a.push_back("--no-report");
  if (o.quiet) a.push_back("--quiet");
  if (o.timeout > 0) a.insert(a.end(), {"--timeout", fmt::format("{}", o.timeout)});
  const std::string figures = !o.figures.empty() ? o.figures : e.figures;
  if (!figures.empty()) a.insert(a.end(), {"--figures", figures});
  if (o.dry_run) a.push_back("--dry-run");
  if (o.no_rerun) a.push_back("--no-rerun");
  if (o.engine != "local") a.insert(a.end(), {"--engine", o.engine});
  const std::pair<const char*, const std::string*> sbatch[] = {
      {"--partition", &o.partition}, {"--time", &o.time}, {"--mem", &o.mem}};
  for (const auto& [flag, value] : sbatch)
    if (!value->empty()) a.push_back(std::string(flag) + "=" + *value);
  if (o.max_parallel > 0) a.insert(a.end(), {"--max-parallel", std::to_string(o.max_parallel)});
  if (o.runs_per_task != 1) a.insert(a.end(), {"--runs-per-task", std::to_string(o.runs_per_task)});
  for (const auto& s : o.sbatch_args) a.push_back("--sbatch-arg=" + s);
  if (o.detach) a.push_back("--detach");
  if (!o.experiment.empty())
    for (const auto& v : chosenVariants(e, o)) a.insert(a.end(), {"--variant", v});
  for (const auto& v : o.variants) a.insert(a.end(), {"--variant", v});
  return execPython("compare.py", a);
}

int reportCommand(const ReportOptions& r) {
  std::vector<std::string> a{r.dir};
  if (r.partial) a.push_back("--partial");
  return execPython("report.py", a);
}

}  // namespace rfsim::app
