#include "app/mech_commands.h"

#include "app/commands.h"
#include "common/error.h"

namespace rfsim::app {

void addConfigOptions(CLI::App* cmd, ConfigOptions& c) {
  cmd->add_option("-c,--config", c.file, "configuration: a YAML file, or a name in configs/ (v100, titanv, maxwell, titanx, h100, h200)")
      ->capture_default_str();
  cmd->add_option("--set", c.sets, "override one key, e.g. --set sm.max_warps=32 (repeatable)");
  cmd->add_option("--mech", c.mech,
                  "switch mechanisms on: a name, a comma-separated list, or none; overrides mechanisms.enabled "
                  "(rfsim mechanisms lists them)");
}

void addOutputOptions(CLI::App* cmd, OutputOptions& o, const std::string& kind) {
  cmd->add_option("-o,--out", o.out, "results folder (default: results/" + kind + "-<config>-<time>)");
  cmd->add_flag("--overwrite", o.overwrite, "replace an existing results folder once the new one is complete");
}

void DeclaredOptions::add(CLI::App* cmd, const mech::CommandOption& o) {
  Bound& b = bound_.emplace_back();
  b.key = mech::optionKey(o);
  b.integer = o.integer;
  if (o.integer)
    b.opt = cmd->add_option(o.names, b.value, o.help)->check(CLI::Range(o.min, o.max));
  else
    b.opt = cmd->add_flag(o.names, o.help);
  if (!o.excludes.empty()) b.opt->excludes(o.excludes);
}

mech::OptionValues DeclaredOptions::given() const {
  mech::OptionValues v;
  for (const Bound& b : bound_)
    if (b.opt->count() > 0) v[b.key] = b.integer ? b.value : 1;
  return v;
}

AnalysisOptions::AnalysisOptions(CLI::App* cmd, mech::ModuleAnalysis::Of of) {
  for (const mech::MechanismInfo& m : mech::all())
    for (const mech::ModuleAnalysis& a : m.commands.analyses)
      if (a.of == of) {
        analyses_.push_back(&a);
        options_.add(cmd, a.option);
      }
}

std::vector<AnalysisRun> AnalysisOptions::given() const {
  const mech::OptionValues v = options_.given();
  std::vector<AnalysisRun> out;
  for (const mech::ModuleAnalysis* a : analyses_) {
    auto it = v.find(mech::optionKey(a->option));
    if (it != v.end()) out.push_back({a, it->second});
  }
  return out;
}

MechanismSubcommands::MechanismSubcommands(CLI::App& app) {
  for (const mech::MechanismInfo& m : mech::all())
    for (const mech::Subcommand& c : m.commands.subcommands) {
      Entry& e = entries_.emplace_back();
      e.info = &m;
      e.command = &c;
      e.cmd = app.add_subcommand(c.name, c.help);
      addConfigOptions(e.cmd, e.config);
      addOutputOptions(e.cmd, e.output, c.name);
      for (const mech::CommandOption& o : c.options) e.options.add(e.cmd, o);
    }
}

int MechanismSubcommands::runChosen() const {
  for (const Entry& e : entries_) {
    if (!*e.cmd) continue;
    mech::CommandRun run;
    // Its own mechanism's section is read whether or not it is switched on.
    run.cfg = loadWithOverrides(e.config, {e.info->name});
    run.config_file = e.config.file;
    run.out = e.output.out.empty() ? defaultOutDir(e.command->name, run.cfg.name) : e.output.out;
    run.overwrite = e.output.overwrite;
    run.options = e.options.given();
    return e.command->run(run);
  }
  return -1;
}

std::string MechanismSubcommands::names() const {
  std::string s;
  for (const Entry& e : entries_) s += (s.empty() ? "rfsim " : ", rfsim ") + e.command->name;
  return s;
}

}  // namespace rfsim::app
