// The back end's report tables (report.h).
#include "backend/report.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/error.h"
#include "ptx/analysis/shared_layout.h"
#include "ptx/machine.h"

namespace rfsim::backend {

namespace {

std::string ratioText(const std::optional<double>& r) { return r ? fmt::format("{:.2f}", *r) : "—"; }
std::string ptxasRegsText(int32_t r) { return r < 0 ? "—" : std::to_string(r); }

// Distance from ptxas on a log scale, so 2x over and 2x under weigh the same.
double distance(const PtxasRow& r) { return r.ratio && *r.ratio > 0 ? std::fabs(std::log(*r.ratio)) : 0.0; }

// Pads a UTF-8 string that may hold "—" (3 bytes, 1 column) to `w` columns.
std::string pad(const std::string& s, size_t w, bool right = true) {
  size_t cols = 0;
  for (unsigned char c : s) cols += (c & 0xC0) != 0x80;
  const std::string fill(cols < w ? w - cols : 0, ' ');
  return right ? fill + s : s + fill;
}

}  // namespace

std::string registerRanges(const std::vector<uint32_t>& regs) {
  std::vector<uint32_t> r = regs;
  std::sort(r.begin(), r.end());
  r.erase(std::unique(r.begin(), r.end()), r.end());
  if (r.empty()) return "-";
  std::string out;
  for (size_t i = 0; i < r.size();) {
    size_t j = i;
    while (j + 1 < r.size() && r[j + 1] == r[j] + 1) ++j;
    if (!out.empty()) out += ", ";
    out += ptx::mach::regName(r[i]);
    if (j > i) out += "-" + ptx::mach::regName(r[j]);
    i = j + 1;
  }
  return out;
}

std::vector<CallGraphRow> callGraphRows(const CompiledModule& cm) {
  const ptx::Module& m = cm.machine;
  std::vector<CallGraphRow> rows;
  for (const FunctionReport& r : cm.functions) {
    CallGraphRow row;
    row.name = r.name;
    row.entry = r.entry;
    for (uint32_t c : cm.callgraph.callees[r.index]) row.callees.push_back(m.functions[c].name);
    row.fru = r.fru;
    row.max_stack_depth = r.max_stack_depth;
    row.recursive = r.recursive;
    if (r.entry) {
      const std::vector<bool> reach = ptx::reachable(cm.callgraph, r.index);
      uint32_t largest = 0;
      for (const FunctionReport& f : cm.functions)
        if (reach[f.index] && f.index != r.index) largest = std::max(largest, f.fru);
      row.low_watermark = uint64_t{r.fru} + largest;
      row.high_watermark = r.max_stack_depth;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

uint32_t staticSharedBytes(const ptx::Module& m, const ptx::CallGraph& cg, uint32_t kernel) {
  return ptx::layoutShared(m, cg).static_bytes.at(kernel);
}

namespace {
// Threads per block of a kernel's launch: .reqntid, else .maxntid, else the default.
uint32_t blockThreads(const ptx::Function& fn, uint32_t default_block, std::string* from = nullptr) {
  auto product = [](const uint32_t d[3]) { return std::max(1u, d[0]) * std::max(1u, d[1]) * std::max(1u, d[2]); };
  auto said = [&](const char* f) {
    if (from) *from = f;
  };
  if (fn.reqntid[0]) return said("reqntid"), product(fn.reqntid);
  if (fn.maxntid[0]) return said("maxntid"), product(fn.maxntid);
  said("default");
  return default_block;
}
}  // namespace

std::vector<KernelOccupancy> occupancyRows(const CompiledModule& cm, const config::GpuConfig& cfg,
                                           uint32_t default_block) {
  std::vector<KernelOccupancy> rows;
  for (const FunctionReport& r : cm.functions) {
    if (!r.entry) continue;
    const ptx::Function& fn = cm.machine.functions[r.index];
    KernelOccupancy k;
    k.kernel = r.name;
    k.threads = blockThreads(fn, default_block, &k.threads_from);
    k.regs = r.tree_regs;
    k.shared = staticSharedBytes(cm.machine, cm.callgraph, r.index);
    try {
      k.occupancy = config::computeOccupancy(cfg, {k.threads, k.regs, k.shared}, r.name);
    } catch (const Error& e) {
      k.error = e.what();
    }
    rows.push_back(std::move(k));
  }
  return rows;
}

PtxasComparison comparePtxas(const CompiledModule& cm, const PtxasReport& ptxas,
                             const std::vector<const config::GpuConfig*>& occupancy_configs, uint32_t default_block) {
  PtxasComparison c;
  PtxasSummary& s = c.summary;
  for (const config::GpuConfig* cfg : occupancy_configs) s.occupancy.push_back({cfg->name, 0, 0, {}});
  // With -rdc (separate compilation) ptxas counts a kernel's own registers;
  // the linker adds the callees' later. Without it the count covers the
  // whole call tree.
  const bool rdc = ptxas.command.find("-rdc=true") != std::string::npos;
  for (const FunctionReport& r : cm.functions) {
    const PtxasFunction* p = ptxas.find(r.name);
    if (!p) {
      s.missing.push_back(r.name);
      continue;
    }
    PtxasRow row;
    row.name = r.name;
    row.entry = r.entry;
    row.ours_regs = r.entry && !rdc ? r.tree_regs : r.regs;
    row.ptxas_regs = p->registers;
    if (p->registers > 0) {
      row.ratio = double(row.ours_regs) / double(p->registers);
      row.within = std::fabs(double(row.ours_regs) - p->registers) <= kPtxasTolerance * p->registers;
    }
    row.ours_spill_store = r.spill_store_bytes;
    row.ours_spill_load = r.spill_load_bytes;
    row.ptxas_spill_store = p->spill_stores;
    row.ptxas_spill_load = p->spill_loads;
    row.ours_frame = r.frame_bytes;
    row.ptxas_frame = p->stack_frame;
    ++s.functions;
    if (r.entry && row.ratio) {
      ++s.kernels;
      if (row.within) ++s.kernels_within;
      if (std::fabs(double(row.ours_regs) - p->registers) <= 0.5 * p->registers) ++s.kernels_within50;
      s.kernel_ratios.push_back(*row.ratio);
      // Blocks per SM, ours against ptxas': the same launch, each side's
      // registers and static shared memory. A kernel neither can launch agrees.
      if (!occupancy_configs.empty() && r.index < cm.machine.functions.size()) {
        const uint32_t threads = blockThreads(cm.machine.functions[r.index], default_block);
        const uint32_t shared = staticSharedBytes(cm.machine, cm.callgraph, r.index);
        for (size_t i = 0; i < occupancy_configs.size(); ++i) {
          auto blocks = [&](uint32_t regs, uint32_t smem) -> int64_t {
            try {
              return config::computeOccupancy(*occupancy_configs[i], {threads, regs, smem}, r.name).blocks;
            } catch (const Error&) {
              return -1;
            }
          };
          const int64_t ours = blocks(row.ours_regs, shared);
          const int64_t theirs = blocks(uint32_t(p->registers), p->shared);
          OccupancyAgreement& a = s.occupancy[i];
          ++a.kernels;
          if (ours == theirs) ++a.equal;
          else a.differ.push_back(fmt::format("{}: {} vs {} blocks", r.name, ours, theirs));
        }
      }
    }
    if (p->spill_stores > 0 && r.spill_store_bytes == 0) s.spill_disagreements.push_back(r.name);
    if (p->spill_stores == 0 && r.spill_store_bytes > 0) s.spill_extra.push_back(r.name);
    c.rows.push_back(std::move(row));
  }
  s.spill_agreement = s.spill_disagreements.empty();
  for (const PtxasRow& r : c.rows)
    if (r.entry && r.ratio && !r.within) s.worst.push_back(r);
  std::stable_sort(s.worst.begin(), s.worst.end(),
                   [](const PtxasRow& a, const PtxasRow& b) { return distance(a) > distance(b); });
  if (s.worst.size() > 3) s.worst.resize(3);
  return c;
}

double medianRatio(const PtxasSummary& s) {
  if (s.kernel_ratios.empty()) return 0.0;
  std::vector<double> v = s.kernel_ratios;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double geomeanDeviation(const PtxasSummary& s) {
  if (s.kernel_ratios.empty()) return 0.0;
  double sum = 0.0;
  for (double r : s.kernel_ratios) sum += std::fabs(std::log(r));
  return std::exp(sum / double(s.kernel_ratios.size())) - 1.0;
}

PtxasSummary mergeSummaries(const std::vector<std::pair<std::string, PtxasSummary>>& all) {
  PtxasSummary s;
  for (const auto& [label, one] : all) {
    s.kernels += one.kernels;
    s.kernels_within += one.kernels_within;
    s.kernels_within50 += one.kernels_within50;
    s.functions += one.functions;
    s.kernel_ratios.insert(s.kernel_ratios.end(), one.kernel_ratios.begin(), one.kernel_ratios.end());
    for (const auto& r : one.worst) s.worst.push_back(r);
    for (const auto& n : one.spill_disagreements) s.spill_disagreements.push_back(label + ": " + n);
    for (const auto& n : one.spill_extra) s.spill_extra.push_back(label + ": " + n);
    for (const auto& n : one.missing) s.missing.push_back(label + ": " + n);
    for (const auto& a : one.occupancy) {
      auto it = std::find_if(s.occupancy.begin(), s.occupancy.end(),
                             [&](const OccupancyAgreement& x) { return x.config == a.config; });
      if (it == s.occupancy.end()) it = s.occupancy.insert(s.occupancy.end(), {a.config, 0, 0, {}});
      it->kernels += a.kernels;
      it->equal += a.equal;
      for (const auto& d : a.differ) it->differ.push_back(label + ": " + d);
    }
  }
  s.spill_agreement = s.spill_disagreements.empty();
  std::stable_sort(s.worst.begin(), s.worst.end(),
                   [](const PtxasRow& a, const PtxasRow& b) { return distance(a) > distance(b); });
  if (s.worst.size() > 3) s.worst.resize(3);
  return s;
}

std::string summaryLine(const PtxasSummary& s) {
  std::string out = fmt::format("{} of {} kernels within ±25 % of ptxas' registers", s.kernels_within, s.kernels);
  if (s.kernels)
    out += fmt::format(" ({} within ±50 %), median ratio {:.2f}, geomean deviation {:.1f} %", s.kernels_within50,
                       medianRatio(s), 100.0 * geomeanDeviation(s));
  if (!s.occupancy.empty()) {
    out += "; blocks per SM as ptxas':";
    for (size_t i = 0; i < s.occupancy.size(); ++i)
      out += fmt::format("{} {} {} of {}", i ? "," : "", s.occupancy[i].config, s.occupancy[i].equal,
                         s.occupancy[i].kernels);
  }
  if (!s.worst.empty()) {
    out += "; farthest:";
    for (size_t i = 0; i < s.worst.size(); ++i)
      out += fmt::format("{} {} {} vs {} ({})", i ? "," : "", s.worst[i].name, s.worst[i].ours_regs,
                         s.worst[i].ptxas_regs, ratioText(s.worst[i].ratio));
  }
  out += s.spill_agreement ? "; spill agreement: yes" : "; spill agreement: NO (ptxas spills, we do not:";
  if (!s.spill_agreement)
    for (size_t i = 0; i < s.spill_disagreements.size(); ++i)
      out += (i ? ", " : " ") + s.spill_disagreements[i] + (i + 1 == s.spill_disagreements.size() ? ")" : "");
  if (!s.spill_extra.empty()) out += fmt::format("; {} functions spill where ptxas does not", s.spill_extra.size());
  if (!s.missing.empty()) out += fmt::format("; {} functions not in the ptxas report", s.missing.size());
  return out;
}

// ---------------------------------------------------------------------------
// Text tables.

std::string functionTable(const CompiledModule& cm) {
  std::string out = fmt::format("{:<36} {:>6} {:>5} {:>4} {:>4} {:<14} {:>4} {:>5} {:>9} {:>9} {:>11} {:>7} {:>8}\n",
                                "function", "kind", "limit", "regs", "tree", "callee-saved", "FRU", "frame",
                                "spill s/l", "save/rst", "spill B s/l", "in/out", "alloc ms");
  for (const FunctionReport& r : cm.functions) {
    out += fmt::format("{:<36} {:>6} {:>5} {:>4} {:>4} {:<14} {:>4} {:>5} {:>9} {:>9} {:>11} {:>7} {:>8.2f}\n",
                       r.name, r.entry ? "kernel" : "func", r.max_regs, r.regs,
                       r.entry ? std::to_string(r.tree_regs) : "", registerRanges(r.callee_saved), r.fru,
                       r.frame_bytes, fmt::format("{}/{}", r.spill_stores, r.spill_loads),
                       fmt::format("{}/{}", r.saves, r.restores),
                       fmt::format("{}/{}", r.spill_store_bytes, r.spill_load_bytes),
                       fmt::format("{}/{}", r.instrs_in, r.instrs_out), r.alloc_ms);
    for (const std::string& n : r.notes) out += fmt::format("  {}: {}\n", r.name, n);
  }
  return out;
}

std::string callGraphTable(const CompiledModule& cm) {
  std::string out = fmt::format("{:<36} {:>4} {:>8} {:>5} {:>9}  {}\n", "function", "FRU", "MaxStack", "recur",
                                "low/high", "callees");
  for (const CallGraphRow& r : callGraphRows(cm)) {
    std::string callees;
    for (const auto& c : r.callees) callees += (callees.empty() ? "" : ", ") + c;
    out += fmt::format("{:<36} {:>4} {:>8} {:>5} {:>9}  {}\n", r.name, r.fru, r.max_stack_depth,
                       r.recursive ? "yes" : "", r.entry ? fmt::format("{}/{}", r.low_watermark, r.high_watermark) : "",
                       callees.empty() ? "-" : callees);
  }
  return out;
}

std::string occupancyTable(const std::vector<KernelOccupancy>& rows) {
  std::string out = fmt::format("{:<36} {:>8} {:>5} {:>7}  {}\n", "kernel", "threads", "regs", "shared", "occupancy");
  for (const KernelOccupancy& k : rows)
    out += fmt::format("{:<36} {:>8} {:>5} {:>7}  {}\n", k.kernel,
                       k.threads_from == "default" ? std::to_string(k.threads)
                                                   : fmt::format("{} ({})", k.threads, k.threads_from),
                       k.regs, k.shared, k.occupancy ? k.occupancy->describe() : "cannot launch: " + k.error);
  return out;
}

std::string ptxasTable(const PtxasComparison& c) {
  std::string out = fmt::format("{:<36} {:>4} {:>5} {:>5} {:>6} {:>12} {:>12} {:>11}\n", "function", "regs", "ptxas",
                                "ratio", "±25%", "spill st B", "spill ld B", "frame B");
  for (const PtxasRow& r : c.rows) {
    out += fmt::format("{:<36} {:>4} {} {} {:>6} {:>12} {:>12} {:>11}\n", r.name, r.ours_regs,
                       pad(ptxasRegsText(r.ptxas_regs), 5), pad(ratioText(r.ratio), 5),
                       r.ratio ? (r.within ? "yes" : "NO") : "",
                       fmt::format("{}/{}", r.ours_spill_store, r.ptxas_spill_store),
                       fmt::format("{}/{}", r.ours_spill_load, r.ptxas_spill_load),
                       fmt::format("{}/{}", r.ours_frame, r.ptxas_frame));
  }
  out += summaryLine(c.summary) + "\n";
  return out;
}

std::string ptxasMarkdownHeader() {
  return "| workload | function | kind | regs | ptxas | ratio | ±25 % | spill st B (ours/ptxas) | "
         "spill ld B (ours/ptxas) | frame B (ours/ptxas) |\n"
         "|---|---|---|--:|--:|--:|:-:|--:|--:|--:|\n";
}

std::string ptxasMarkdownRows(const std::string& workload, const PtxasComparison& c) {
  std::string out;
  for (const PtxasRow& r : c.rows) {
    // Long mangled names break the table's layout; a code span keeps them whole.
    out += fmt::format("| {} | `{}` | {} | {} | {} | {} | {} | {}/{} | {}/{} | {}/{} |\n", workload, r.name,
                       r.entry ? "kernel" : "func", r.ours_regs, ptxasRegsText(r.ptxas_regs), ratioText(r.ratio),
                       r.ratio ? (r.within ? "yes" : "**no**") : "", r.ours_spill_store, r.ptxas_spill_store,
                       r.ours_spill_load, r.ptxas_spill_load, r.ours_frame, r.ptxas_frame);
  }
  return out;
}

// ---------------------------------------------------------------------------
// JSON.

nlohmann::json reportJson(const CompiledModule& cm, const std::vector<KernelOccupancy>& occ,
                          const PtxasComparison* ptxas) {
  using nlohmann::json;
  json fns = json::array();
  for (const FunctionReport& r : cm.functions) {
    fns.push_back({{"name", r.name},
                   {"kind", r.entry ? "kernel" : "function"},
                   {"max_regs", r.max_regs},
                   {"regs", r.regs},
                   {"tree_regs", r.tree_regs},
                   {"callee_saved", r.callee_saved},
                   {"callee_saved_ranges", registerRanges(r.callee_saved)},
                   {"fru", r.fru},
                   {"frame_bytes", r.frame_bytes},
                   {"spill_slot_bytes", r.spill_bytes},
                   {"spill_stores", r.spill_stores},
                   {"spill_loads", r.spill_loads},
                   {"saves", r.saves},
                   {"restores", r.restores},
                   {"spill_store_bytes", r.spill_store_bytes},
                   {"spill_load_bytes", r.spill_load_bytes},
                   {"arg_moves", r.arg_moves},
                   {"instrs_in", r.instrs_in},
                   {"instrs_out", r.instrs_out},
                   {"max_stack_depth", r.max_stack_depth},
                   {"recursive", r.recursive},
                   {"spilled_values", r.ra.spilled_values},
                   {"ra_rounds", r.ra.rounds},
                   {"checked_uses", r.checked_uses},
                   {"alloc_ms", r.alloc_ms},
                   {"notes", r.notes}});
  }
  json cg = json::array();
  for (const CallGraphRow& r : callGraphRows(cm)) {
    json row = {{"name", r.name}, {"callees", r.callees}, {"fru", r.fru}, {"max_stack_depth", r.max_stack_depth},
                {"recursive", r.recursive}};
    if (r.entry) row["low_watermark"] = r.low_watermark, row["high_watermark"] = r.high_watermark;
    cg.push_back(std::move(row));
  }
  json oc = json::array();
  for (const KernelOccupancy& k : occ) {
    json row = {{"kernel", k.kernel}, {"threads", k.threads}, {"threads_from", k.threads_from},
                {"regs", k.regs}, {"shared", k.shared}};
    if (k.occupancy) {
      json lim = json::array();
      for (config::Limiter l : k.occupancy->limiters) lim.push_back(config::limiterName(l));
      row["blocks"] = k.occupancy->blocks;
      row["warps"] = k.occupancy->warps;
      row["occupancy"] = k.occupancy->occupancy;
      row["limiters"] = lim;
    } else {
      row["error"] = k.error;
    }
    oc.push_back(std::move(row));
  }
  json out = {{"file", cm.machine.file}, {"functions", fns}, {"callgraph", cg}, {"occupancy", oc}};
  if (ptxas) {
    json rows = json::array();
    for (const PtxasRow& r : ptxas->rows) {
      json row = {{"name", r.name},
                  {"kind", r.entry ? "kernel" : "function"},
                  {"regs", r.ours_regs},
                  {"ptxas_regs", r.ptxas_regs < 0 ? json() : json(r.ptxas_regs)},
                  {"spill_store_bytes", r.ours_spill_store},
                  {"ptxas_spill_store_bytes", r.ptxas_spill_store},
                  {"spill_load_bytes", r.ours_spill_load},
                  {"ptxas_spill_load_bytes", r.ptxas_spill_load},
                  {"frame_bytes", r.ours_frame},
                  {"ptxas_frame_bytes", r.ptxas_frame}};
      if (r.ratio) row["ratio"] = *r.ratio, row["within_25pct"] = r.within;
      rows.push_back(std::move(row));
    }
    const PtxasSummary& s = ptxas->summary;
    out["ptxas"] = {{"rows", rows},
                    {"kernels", s.kernels},
                    {"kernels_within_25pct", s.kernels_within},
                    {"functions", s.functions},
                    {"spill_agreement", s.spill_agreement},
                    {"spill_disagreements", s.spill_disagreements},
                    {"spill_extra", s.spill_extra},
                    {"missing", s.missing},
                    {"summary", summaryLine(s)}};
  }
  return out;
}

}  // namespace rfsim::backend
