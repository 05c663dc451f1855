// `rfsim backend`: compiles PTX (a workload's, or files) through the back end
// and prints what it did: per function registers, callee-saved set, FRU,
// frame, spills and ABI saves; the call graph with its MaxStackDepth and
// watermarks; occupancy per kernel; and, with --compare-ptxas, the
// comparison with NVIDIA's ptxas -v report for the same PTX. --markdown
// prints only the comparison as a Markdown table (docs/backend.md is made
// with it, scripts/ptxas_compare.sh); --json writes everything to a file.
// An analysis a mechanism adds (mech/commands.h) prints instead of the
// reports, for each variant's machine program; with --json its results go
// to the file instead of the reports' (docs/backend.md).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app/commands.h"
#include "backend/backend.h"
#include "ptx/analysis/cfg.h"
#include "runtime/compile_config.h"
#include "backend/ptxas_report.h"
#include "backend/report.h"
#include "common/error.h"
#include "common/results_dir.h"
#include "func/decode.h"
#include "mech/mechanism.h"
#include "ptx/analysis/printer.h"
#include "ptx/link.h"
#include "ptx/parser.h"
#include "workloads/workload.h"

namespace rfsim::app {

namespace {

namespace fs = std::filesystem;

struct Input {
  std::string label;             // workload name, or the file as given
  fs::path ptx;
  std::optional<fs::path> ptxas;  // the ptxas -v report to compare with
  bool ubench = false;           // a microbenchmark workload (tag "ubench"), summarised apart
  std::vector<fs::path> link = {};  // modules linked with it (a workload's separate translation units)
};

// The ptxas report beside a PTX file: x.ptx -> x.ptxas.txt.
fs::path ptxasPathFor(const fs::path& ptx) {
  fs::path p = ptx;
  p.replace_extension(".ptxas.txt");
  return p;
}

std::vector<Input> inputs(const BackendOptions& o) {
  std::vector<Input> out;
  if (!o.workload.empty()) {
    std::vector<std::string> names;
    if (o.workload == "all") {
      for (const auto& w : workloads::all()) names.push_back(w.name);
    } else {
      size_t pos = 0;
      while (true) {
        const size_t comma = o.workload.find(',', pos);
        names.push_back(o.workload.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
        if (comma == std::string::npos) break;
        pos = comma + 1;
      }
    }
    for (const auto& name : names) {
      const workloads::Workload* w = workloads::find(name);
      if (!w) {
        std::string known;
        for (const auto& k : workloads::all()) known += (known.empty() ? "" : ", ") + k.name;
        throw Error(fmt::format("--workload: no workload named '{}' (known: {}, or all)", name, known));
      }
      const fs::path ptx = fs::path(RFSIM_SOURCE_DIR) / w->ptx;
      const fs::path rep = ptxasPathFor(ptx);
      const bool ub = std::find(w->tags.begin(), w->tags.end(), "ubench") != w->tags.end();
      Input in{w->name, ptx, fs::exists(rep) ? std::optional<fs::path>(rep) : std::nullopt, ub};
      for (const std::string& l : w->link) in.link.push_back(fs::path(RFSIM_SOURCE_DIR) / l);
      out.push_back(in);
    }
  }
  for (const auto& f : o.files) {
    if (!fs::exists(f)) throw Error(fmt::format("{}: no such PTX file", f));
    std::optional<fs::path> rep;
    if (o.compare_ptxas || o.markdown) {
      rep = ptxasPathFor(f);
      if (!fs::exists(*rep))
        throw Error(fmt::format("{}: --compare-ptxas needs the ptxas -v report {} beside it", f, rep->string()));
    }
    out.push_back({f, f, rep});
  }
  if (out.empty()) throw Error("backend: give --workload NAME|all or one or more PTX files");
  return out;
}

// The comparison summed over several modules.
}  // namespace

int backendCommand(const BackendOptions& o) {
  const config::GpuConfig cfg = loadWithOverrides(o.config);
  const std::vector<Input> ins = inputs(o);
  const bool compare = o.compare_ptxas || o.markdown;

  backend::CompileOptions co;
  co.max_regs = o.max_regs;
  co.regfile_regs = cfg.regfile.size_kb * 1024u / 4u;
  rt::applyGpuConfig(co, cfg);

  nlohmann::json modules = nlohmann::json::array();
  if (!o.json.empty())
    for (const AnalysisRun& a : o.analyses)
      if (!a.analysis->json)
        throw Error(fmt::format("--json: the analysis {} has no JSON form", a.analysis->option.names));
  // Application workloads and microbenchmarks are summarised apart: a
  // microbenchmark is a chain of one instruction whose register count is
  // the fixed cost of addresses and parameters, not allocation quality.
  std::vector<std::pair<std::string, backend::PtxasSummary>> summaries, ubench_summaries;
  std::string markdown;
  std::vector<std::string> failed;  // modules the back end refused
  // The variants to compile every module into: the baseline, then each
  // enabled mechanism's (--mech), in order, and composing ones' combinations.
  std::vector<std::unique_ptr<mech::Mechanism>> mechs = mech::instantiate(cfg);
  std::vector<mech::Mechanism*> mech_ptrs;
  for (const auto& m : mechs) mech_ptrs.push_back(m.get());
  std::vector<backend::Variant> variants(1);
  for (auto& v : mech::variantsOf(mech_ptrs)) variants.push_back(std::move(v));
  // Blocks per SM from our registers against ptxas' on the reference GPUs
  // (docs/backend.md), each as its named configuration.
  std::vector<config::GpuConfig> occ_cfgs;
  std::vector<const config::GpuConfig*> occ_ptrs;
  if (compare || !o.json.empty()) {
    for (const char* name : {"v100", "titanv", "maxwell"}) {
      ConfigOptions c;
      c.file = name;
      c.mech = "none";
      occ_cfgs.push_back(loadWithOverrides(c));
    }
    for (const auto& c : occ_cfgs) occ_ptrs.push_back(&c);
  }
  for (const Input& in : ins) {
    for (const backend::Variant& variant : variants) {
      const bool base = &variant == &variants.front();
      backend::CompiledModule cm;
      try {
        co.variant = base ? nullptr : &variant;
        std::vector<fs::path> files{in.ptx};
        files.insert(files.end(), in.link.begin(), in.link.end());
        cm = backend::compileModule(ptx::parseAndLink(files), co);
      } catch (const Error& e) {
        // With several modules the others still compile; the exit status says
        // something failed.
        if (ins.size() == 1 && variants.size() == 1) throw;
        std::cerr << "rfsim: error: " << in.label << " (variant " << variant.name << "): " << e.what() << "\n";
        failed.push_back(base ? in.label : in.label + " [" + variant.name + "]");
        continue;
      }
      std::string passes;
      for (const auto& p : cm.passes) passes += (passes.empty() ? "" : ", ") + p;
      const std::string variant_line =
          base ? "" : fmt::format("variant {}: {} (passes: {})\n", variant.name, variant.description, passes);
      if (!o.analyses.empty()) {  // the mechanisms' analyses of the machine program
        if (!base) std::cout << "// " << variant_line;
        ptx::Module mm = cm.machine;
        ptx::buildCfg(mm);
        for (const AnalysisRun& a : o.analyses) a.analysis->run(mm, a.value);
        if (!o.json.empty()) {
          nlohmann::json j = {{"label", in.label}, {"variant", variant.name}, {"passes", cm.passes}};
          for (const AnalysisRun& a : o.analyses) j[mech::optionKey(a.analysis->option)] = a.analysis->json(mm, a.value);
          modules.push_back(std::move(j));
        }
        continue;
      }
      if (o.print) {  // the machine program itself, as PTX text over physical registers
        if (!base) std::cout << "// " << variant_line;
        std::cout << ptx::printModule(cm.machine);
        continue;
      }
      const auto occ = backend::occupancyRows(cm, cfg, o.block);
      // A workload's committed report is always compared (it goes into the
      // JSON); the text tables show it with --compare-ptxas. ptxas compiled
      // the baseline: only the base variant is compared.
      std::optional<backend::PtxasComparison> cmp;
      if (in.ptxas && base) {
        cmp = backend::comparePtxas(cm, backend::readPtxasReport(*in.ptxas), occ_ptrs, o.block);
        (in.ubench ? ubench_summaries : summaries).emplace_back(in.label, cmp->summary);
      } else if (compare && base) {
        std::cerr << fmt::format("rfsim: warning: {}: no ptxas report beside {}\n", in.label, in.ptx.string());
      }

      if (o.markdown) {
        if (cmp) markdown += backend::ptxasMarkdownRows(in.label, *cmp);
      } else {
        std::cout << fmt::format("== {}{} ({}, limit {}, config {}) ==\n{}", in.label,
                                 base ? "" : " [" + variant.name + "]", in.ptx.string(),
                                 o.max_regs ? std::to_string(o.max_regs) : "none", cfg.name, variant_line);
        std::cout << backend::functionTable(cm) << "\n" << backend::callGraphTable(cm) << "\n";
        std::cout << backend::occupancyTable(occ) << "\n";
        if (cmp && compare) std::cout << backend::ptxasTable(*cmp) << "\n";
      }
      if (!o.json.empty()) {
        nlohmann::json j = backend::reportJson(cm, occ, cmp ? &*cmp : nullptr);
        j["label"] = in.label;
        j["variant"] = variant.name;
        j["passes"] = cm.passes;
        // The operand reuse flags the timing model uses (func::setReuseFlags),
        // counted per function with a body (scripts/reuse_flags.py sets them
        // beside ptxas' .reuse flags).
        nlohmann::json reuse = nlohmann::json::object();
        for (const ptx::Function& f : cm.machine.functions) {
          if (f.blocks.empty()) continue;
          const func::ReuseCount n = func::reuseCount(f);
          reuse[f.name] = {{"operands", n.operands}, {"flagged", n.flagged}};
        }
        j["reuse_flags"] = std::move(reuse);
        modules.push_back(std::move(j));
      }
    }
  }

  const backend::PtxasSummary total = backend::mergeSummaries(summaries);
  const std::string ub_line =
      ubench_summaries.empty() ? ""
                               : fmt::format("\nMicrobenchmarks (tag ubench): {}.", backend::summaryLine(backend::mergeSummaries(ubench_summaries)));
  if (o.markdown) {
    std::cout << backend::ptxasMarkdownHeader() << markdown << "\n";
    std::cout << fmt::format("Limit {}, {}: {}.{}\n", o.max_regs ? std::to_string(o.max_regs) : "none",
                             ubench_summaries.empty() ? "all" : "application workloads", backend::summaryLine(total),
                             ub_line);
  } else if (compare && summaries.size() + ubench_summaries.size() > 1) {
    std::cout << "All: " << backend::summaryLine(total) << ub_line << "\n";
  }
  std::string failed_list;
  for (const auto& f : failed) failed_list += (failed_list.empty() ? "" : ", ") + f;
  if (!failed.empty() && (o.markdown || compare))
    std::cout << fmt::format("{}Not compiled (the back end refused them): {}.\n", o.markdown ? "\n" : "",
                             failed_list);
  if (!o.json.empty() && !o.analyses.empty()) {
    // The analyses' results: per module and variant, one object per analysis
    // under its option's name.
    nlohmann::json asked = nlohmann::json::object();
    for (const AnalysisRun& a : o.analyses) asked[mech::optionKey(a.analysis->option)] = a.value;
    nlohmann::json j = {{"config", cfg.name}, {"maxrregcount", o.max_regs}, {"analyses", asked}, {"modules", modules}};
    j["failed"] = failed;
    writeFileAtomic(o.json, j.dump(2) + "\n");
  } else if (!o.json.empty()) {
    nlohmann::json j = {{"config", cfg.name},
                        {"maxrregcount", o.max_regs},
                        {"default_block", o.block},
                        {"modules", modules}};
    j["failed"] = failed;
    if (!summaries.empty()) {
      nlohmann::json occ = nlohmann::json::object();
      for (const auto& a : total.occupancy)
        occ[a.config] = {{"kernels", a.kernels}, {"equal", a.equal}, {"differ", a.differ}};
      j["ptxas_summary"] = {{"kernels", total.kernels},
                            {"kernels_within_25pct", total.kernels_within},
                            {"kernels_within_50pct", total.kernels_within50},
                            {"median_ratio", backend::medianRatio(total)},
                            {"geomean_deviation", backend::geomeanDeviation(total)},
                            {"occupancy_agreement", occ},
                            {"functions", total.functions},
                            {"spill_agreement", total.spill_agreement},
                            {"spill_disagreements", total.spill_disagreements},
                            {"summary", backend::summaryLine(total)}};
    }
    if (!ubench_summaries.empty()) {
      const backend::PtxasSummary ub = backend::mergeSummaries(ubench_summaries);
      j["ptxas_summary_ubench"] = {{"kernels", ub.kernels},
                                   {"kernels_within_25pct", ub.kernels_within},
                                   {"summary", backend::summaryLine(ub)}};
    }
    writeFileAtomic(o.json, j.dump(2) + "\n");
  }
  return failed.empty() ? 0 : 1;
}

}  // namespace rfsim::app
