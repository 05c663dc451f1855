// `rfsim run --workload NAME`: runs CUDA workloads functionally through the
// runtime API, checks each against its CPU reference, and reports dynamic
// instruction counts per opcode and opcode class.
#include <algorithm>
#include <functional>
#include <filesystem>
#include <iostream>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app/commands.h"
#include "app/commands.h"
#include "runtime/launch_json.h"
#include "common/error.h"
#include "common/progress.h"
#include "common/results_dir.h"
#include "config/config_io.h"
#include "energy/energy_model.h"
#include "backend/backend.h"
#include "gpu/gpu_stats.h"
#include "mech/mechanism.h"
#include "runtime/runtime.h"
#include "sm/core/sm.h"
#include "sm/core/sm_trace.h"
#include "stats/stats.h"
#include "workloads/workload.h"

namespace rfsim::app {

namespace {

// Opcode classes for the dynamic instruction mix.
enum class OpClass : uint8_t { Alu, Sfu, Move, Mem, Ctrl, Sync, Count_ };
const std::vector<std::string> kClassNames = {"alu", "sfu", "move_convert", "memory", "control", "sync_comm"};

OpClass opClass(ptx::Op op) {
  using ptx::Op;
  switch (op) {
    case Op::Ld: case Op::Ldu: case Op::St: case Op::Prefetch: case Op::Atom: case Op::Red:
      return OpClass::Mem;
    case Op::Bra: case Op::Call: case Op::Ret: case Op::Exit: case Op::Trap: case Op::Brkpt:
    case Op::Ext:  // a mechanism's instruction (push, pop, prefetch): control of its hardware
      return OpClass::Ctrl;
    case Op::Bar: case Op::Membar: case Op::Fence: case Op::Shfl: case Op::Vote: case Op::Activemask:
    case Op::Match: case Op::Nanosleep:
      return OpClass::Sync;
    case Op::Rcp: case Op::Sqrt: case Op::Rsqrt: case Op::Ex2: case Op::Lg2: case Op::Sin: case Op::Cos:
    case Op::Tanh:
      return OpClass::Sfu;
    case Op::Mov: case Op::Cvta: case Op::Cvt: case Op::Selp: case Op::Slct: case Op::Prmt:
      return OpClass::Move;
    default:
      return OpClass::Alu;
  }
}

std::vector<std::string> roleNames() {
  std::vector<std::string> n;
  for (unsigned i = 0; i < rt::kNumMRoles; ++i) n.push_back(ptx::mroleName(ptx::MRole(i)));
  return n;
}

std::vector<std::string> opNames() {
  std::vector<std::string> n;
  for (unsigned i = 0; i < static_cast<unsigned>(ptx::Op::Count_); ++i) n.push_back(ptx::opName(ptx::Op(i)));
  return n;
}

// The statistics of one workload run.
struct WorkloadStats : stats::Group {
  WorkloadStats(stats::Group* parent, const std::string& name, const std::string& desc)
      : Group(parent, name, desc),
        ADD_STAT(passed, stats::unit::Count, "1 when the output matched the CPU reference"),
        ADD_STAT(launches, stats::unit::Count, "kernel launches"),
        ADD_STAT(blocks, stats::unit::Count, "thread blocks run"),
        ADD_STAT(threads, stats::unit::Count, "threads run"),
        ADD_STAT(warp_instrs, stats::unit::Count, "warp instructions executed"),
        ADD_STAT(thread_instrs, stats::unit::Count, "thread instructions executed (active lanes)"),
        ADD_STAT(warp_instrs_by_class, stats::unit::Count, "warp instructions per opcode class",
                 kClassNames.size(), kClassNames),
        ADD_STAT(warp_instrs_by_op, stats::unit::Count, "warp instructions per opcode",
                 static_cast<size_t>(ptx::Op::Count_), opNames()),
        ADD_STAT(warp_instrs_by_role, stats::unit::Count,
                 "warp instructions by what the back end added them for (code: the program's own)", rt::kNumMRoles,
                 roleNames()),
        ADD_STAT(thread_instrs_by_role, stats::unit::Count, "thread instructions by role", rt::kNumMRoles,
                 roleNames()),
        ADD_STAT(max_regs, stats::unit::Register, "the most registers per thread any launched kernel's call tree needs"),
        ADD_STAT(static_spill_bytes, stats::unit::Byte,
                 "spill-store plus spill-load bytes of the machine program (pressure and ABI, as ptxas -v)"),
        ADD_STAT(cycles, stats::unit::Cycle, "GPU (SM clock) cycles over all launches, extrapolated ones included (--timing; 0 otherwise)"),
        ADD_STAT(ipc, stats::unit::Ratio, "warp instructions per cycle, all SMs together (--timing)",
                 [this] { return cycles.get() ? double(warp_instrs.get()) / double(cycles.get()) : 0.0; }),
        ADD_STAT(parallel_launches, stats::unit::Count,
                 "functional launches whose blocks ran on several host threads (sim.threads)"),
        ADD_STAT(reexecuted_blocks, stats::unit::Count,
                 "blocks of those launches run again alone: they read what a block before them wrote meanwhile"),
        ADD_STAT(wall_time, "microsecond", "host time in kernel launches"),
        ADD_STAT(warp_instrs_per_second, stats::unit::Rate, "functional simulation speed",
                 [this] { return wall_time.get() ? warp_instrs.get() * 1e6 / double(wall_time.get()) : 0.0; }),
        ADD_STAT(simd_efficiency, stats::unit::Ratio, "thread instructions / (32 x warp instructions)",
                 [this] {
                   return warp_instrs.get() ? double(thread_instrs.get()) / (32.0 * double(warp_instrs.get())) : 0.0;
                 }) {}

  stats::Scalar passed, launches, blocks, threads, warp_instrs, thread_instrs;
  stats::Vector warp_instrs_by_class, warp_instrs_by_op, warp_instrs_by_role, thread_instrs_by_role;
  stats::Scalar max_regs, static_spill_bytes, cycles;
  stats::Formula ipc;
  stats::Scalar parallel_launches, reexecuted_blocks, wall_time;
  stats::Formula warp_instrs_per_second, simd_efficiency;
};

std::vector<const workloads::Workload*> select(const std::string& spec) {
  std::vector<const workloads::Workload*> out;
  if (spec == "all") {
    for (const auto& w : workloads::all()) out.push_back(&w);
    return out;
  }
  size_t pos = 0;
  while (pos <= spec.size()) {
    const size_t comma = spec.find(',', pos);
    const std::string name = spec.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    const workloads::Workload* w = workloads::find(name);
    if (!w) {
      std::string known;
      for (const auto& k : workloads::all()) known += (known.empty() ? "" : ", ") + k.name;
      throw Error(fmt::format("--workload: no workload named '{}' (known: {}, or all)", name, known));
    }
    out.push_back(w);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out;
}

}  // namespace

int listWorkloads() {
  for (const auto& w : workloads::all()) {
    std::string tags;
    for (const auto& t : w.tags) tags += (tags.empty() ? "" : ",") + t;
    std::cout << fmt::format("{:<18} {:<28} {}\n", w.name, tags, w.description);
  }
  return 0;
}

int listMechanisms() {
  for (const auto& m : mech::all()) {
    std::string rtl;
    for (const auto& u : m.rtl_units) rtl += (rtl.empty() ? "" : ", ") + std::string("rtl/") + u + ".sv";
    std::string isa;
    for (const auto& op : m.isa_ops)
      isa += fmt::format("\n         instruction: {} ({}): {}", op.mnemonic, op.name, op.summary);
    for (const auto& [f, bits] : m.control_fields) isa += fmt::format("\n         control field: {} ({} bits)", f, bits);
    for (const auto& c : m.reg_classes)
      isa += fmt::format("\n         register class: {}0..{}{} ({}): {}", c.prefix, c.prefix, c.count - 1, c.name,
                         c.summary);
    // With whom it runs: the pairs it composes with (either may declare
    // it) and those it is refused with.
    std::string with;
    for (const auto& o : mech::all())
      for (const auto& [a, how] : o.composes_after)
        if (o.name == m.name || a == m.name)
          with += fmt::format("\n         composes with {}: {}", o.name == m.name ? a : o.name, how);
    for (const auto& o : mech::all())
      for (const auto& [a, why] : o.conflicts)
        if (o.name == m.name || a == m.name)
          with += fmt::format("\n         not with {}: {}", o.name == m.name ? a : o.name, why);
    std::cout << fmt::format("{:<8} {}\n         status: {}\n         configuration: mechanisms.{}{}{}{}\n", m.name,
                             m.summary, m.status, m.name, rtl.empty() ? "" : "\n         RTL: " + rtl, isa, with);
  }
  return 0;
}

int runWorkloads(const RunOptions& o) {
  config::GpuConfig cfg = loadWithOverrides(o.config);
  const std::vector<const workloads::Workload*> chosen = select(o.workload);
  const workloads::Size size = o.large ? workloads::Size::Large : workloads::Size::Small;

  // --rtl / --no-rtl: the RTL of the enabled mechanisms that have some.
  const std::vector<std::string> enabled = cfg.mechanisms.enabledList();
  if (o.rtl || o.no_rtl) {
    if (!o.timing) throw Error("--rtl/--no-rtl with --workload need --timing: the RTL sits in the SM's pipeline");
    // Each enabled mechanism with RTL has the key mechanisms.<name>.rtl.
    bool any = false;
    for (const auto& n : enabled)
      if (const auto* m = mech::find(n); m && !m->rtl_units.empty()) {
        config::applyOverride(cfg, fmt::format("mechanisms.{}.rtl={}", n, o.rtl ? "true" : "false"));
        any = true;
      }
    if (!any) {
      std::string with_rtl;
      for (const auto& m : mech::all())
        if (!m.rtl_units.empty()) with_rtl += (with_rtl.empty() ? "" : ", ") + m.name;
      throw Error(fmt::format("--rtl: no enabled mechanism has RTL (mechanisms with RTL: {}; switch one on with --mech)",
                              with_rtl));
    }
  }
  std::vector<std::unique_ptr<mech::Mechanism>> mechs = mech::instantiate(cfg);
  // The PTX each workload runs: its own, or another compilation of it
  // (--code NAME: <stem>.NAME.ptx), checked before anything is written.
  std::map<std::string, std::vector<std::string>> ptx_of;
  for (const workloads::Workload* w : chosen) {
    std::vector<std::string> mods = w->modules();
    std::string rel = w->ptx;
    if (!o.code.empty()) {
      if (o.code.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_-") != std::string::npos)
        throw Error(fmt::format("--code {}: a code name is lower-case letters, digits, '_' and '-'", o.code));
      rel = std::filesystem::path(w->ptx).replace_extension("." + o.code + ".ptx").string();
      if (!std::filesystem::is_regular_file(std::filesystem::path(RFSIM_SOURCE_DIR) / rel))
        throw Error(fmt::format("--code {}: workload {} has no such code ({} does not exist; scripts/gen_ptx.sh "
                                "writes {}.inlined.ptx for workloads with calls)",
                                o.code, w->name, rel, w->name));
    }
    // The inlined compilation is one whole program; otherwise every module.
    if (!o.code.empty()) mods = {rel};
    ptx_of[w->name] = mods;
  }

  ResultsDir dir(o.output.out.empty() ? defaultOutDir("run", cfg.name) : o.output.out, o.output.overwrite);
  const std::string config_yaml = config::toYaml(cfg);
  dir.writeFile("config.yaml", config_yaml);

  stats::Group root(nullptr, "sim", "functional execution of CUDA workloads");
  std::vector<std::unique_ptr<WorkloadStats>> per;
  nlohmann::json checks = nlohmann::json::object();
  nlohmann::json tree = nlohmann::json::object();  // stats.json's "workloads"
  // One SM trace for the whole run: every launch of every workload, one after the other.
  std::unique_ptr<sm::SmTrace> trace;
  if (!o.trace_vcd.empty()) {
    uint64_t first = 0, last = UINT64_MAX;
    if (!o.trace_window.empty()) sm::SmTrace::parseWindow(o.trace_window, first, last);
    trace = std::make_unique<sm::SmTrace>(o.trace_vcd, cfg.sm.num_schedulers, first, last);
  }
  // Mechanisms' own waveforms (their units' RTL) beside the SM's, over the same cycles.
  std::vector<std::filesystem::path> mech_traces;
  if (trace)
    for (auto& m : mechs)
      for (auto& f : m->traceBeside(trace->vcdPath(), trace->first(), trace->last())) mech_traces.push_back(f);
  int failed = 0;
  ProgressLine progress(o.quiet);  // each launch's progress on a terminal
  if (!o.quiet && o.timing)
    std::cout << fmt::format("{:<18} {:>6} {:>12}  {}\n", "workload", "check", "SM cycles", "IPC, host time, speed, detail");
  else if (!o.quiet)
    std::cout << fmt::format("{:<18} {:>6} {:>14} {:>16} {:>9} {:>12}  {}\n", "workload", "check", "warp instrs",
                             "thread instrs", "seconds", "warp-instr/s", "detail");
  for (const workloads::Workload* w : chosen) {
    auto& st = *per.emplace_back(std::make_unique<WorkloadStats>(&root, w->name, w->description));
    workloads::Check check;
    rt::LaunchStats t;
    double nj_per_warp_instr = 0.0;
    try {
      rt::DeviceOptions dopt;
      dopt.machine = !o.virtual_regs;
      dopt.max_regs = o.max_regs;
      dopt.regfile_regs = cfg.regfile.size_kb * 1024u / 4u;
      dopt.timing = o.timing;
      dopt.gpu = &cfg;
      dopt.trace = trace.get();
      dopt.progress = &progress;
      if (o.debug_slot >= 0)
        dopt.sm_setup = [slot = o.debug_slot](sm::Sm& sm, uint32_t i) {
          if (i == 0) sm.setTraceSlot(slot);
        };
      for (auto& m : mechs) dopt.mechanisms.push_back(m.get());
      if (o.timing && o.virtual_regs) throw Error("--timing runs the machine program; it cannot be combined with --virtual-regs");
      rt::Device dev(dopt);
      std::vector<std::filesystem::path> files;
      for (const std::string& m : ptx_of.at(w->name)) files.push_back(std::filesystem::path(RFSIM_SOURCE_DIR) / m);
      dev.loadModules(files);
      check = w->run(dev, size);
      t = dev.totals();
      if (o.timing) {
        nlohmann::json total;
        tree[w->name]["launches"] = rt::launchesJson(cfg, dev, dopt.mechanisms, total, nj_per_warp_instr);
        tree[w->name]["total"] = total;
      }
      if (const backend::CompiledModule* cm = dev.compiled()) {
        for (const auto& f : cm->functions) {
          st.max_regs = std::max<uint64_t>(st.max_regs.get(), f.tree_regs);
          st.static_spill_bytes += f.spill_store_bytes + f.spill_load_bytes;
        }
      }
    } catch (const Error& e) {
      // A kernel that faults fails its workload; with several chosen the
      // others still run, and the exit status says something failed.
      if (chosen.size() == 1) {
        dir.abandon(fmt::format("workload {}: {}", w->name, e.what()));
        throw;
      }
      check.passed = false;
      check.detail = e.what();
    }
    st.passed = check.passed ? 1 : 0;
    st.launches = t.launches;
    st.blocks = t.blocks;
    st.threads = t.threads;
    st.warp_instrs = t.warp_instrs;
    st.thread_instrs = t.thread_instrs;
    for (size_t i = 0; i < t.warp_instrs_by_op.size() && i < st.warp_instrs_by_op.size(); ++i) {
      st.warp_instrs_by_op[i] = t.warp_instrs_by_op[i];
      st.warp_instrs_by_class[static_cast<size_t>(opClass(ptx::Op(i)))] += t.warp_instrs_by_op[i];
    }
    for (size_t i = 0; i < rt::kNumMRoles; ++i) {
      st.warp_instrs_by_role[i] = t.warp_instrs_by_role[i];
      st.thread_instrs_by_role[i] = t.thread_instrs_by_role[i];
    }
    st.parallel_launches = t.parallel_launches;
    st.reexecuted_blocks = t.reexecuted_blocks;
    st.wall_time = static_cast<uint64_t>(t.host_seconds * 1e6);
    st.cycles = t.cycles;
    checks[w->name] = {{"passed", check.passed}, {"detail", check.detail}, {"ptx", ptx_of.at(w->name).front()}, {"modules", ptx_of.at(w->name)},
                       {"size", o.large ? "large" : "small"}};
    if (check.passed && !check.measured.empty()) {
      nlohmann::json& m = checks[w->name]["measured"];
      for (const workloads::Measured& x : check.measured)
        m[x.name] = {{"value", x.value}, {"unit", x.unit}, {"desc", x.desc}};
    }
    failed += !check.passed;
    if (!o.quiet && o.timing)
      std::cout << fmt::format("{:<18} {:>6} {:>12} cycles, IPC {:.2f}, {:.2f} nJ/warp-instr, {:>9.3f} s, "
                               "{:.0f} warp-instr/s  {}\n",
                               w->name, check.passed ? "pass" : "FAIL", t.cycles, st.ipc.get(), nj_per_warp_instr,
                               t.host_seconds, st.warp_instrs_per_second.get(), check.detail);
    else if (!o.quiet)
      std::cout << fmt::format("{:<18} {:>6} {:>14} {:>16} {:>9.3f} {:>12.0f}  {}\n", w->name,
                               check.passed ? "pass" : "FAIL", t.warp_instrs, t.thread_instrs, t.host_seconds,
                               st.warp_instrs_per_second.get(), check.detail);
  }
  if (!o.quiet && per.size() == 1) {
    // One workload: its instruction mix, by class and by opcode.
    const WorkloadStats& st = *per.front();
    std::string mix;
    for (size_t c = 0; c < st.warp_instrs_by_class.size(); ++c)
      mix += fmt::format("{}{} {}", mix.empty() ? "" : ", ", kClassNames[c], st.warp_instrs_by_class[c]);
    std::cout << "warp instructions by class: " << mix << "\n";
    std::vector<std::pair<uint64_t, size_t>> ops;
    for (size_t i = 0; i < st.warp_instrs_by_op.size(); ++i)
      if (st.warp_instrs_by_op[i]) ops.push_back({st.warp_instrs_by_op[i], i});
    std::sort(ops.rbegin(), ops.rend());
    std::string top;
    for (size_t i = 0; i < ops.size() && i < 10; ++i)
      top += fmt::format("{}{} {}", top.empty() ? "" : ", ", ptx::opName(ptx::Op(ops[i].second)), ops[i].first);
    std::cout << "warp instructions by opcode: " << top << (ops.size() > 10 ? ", ..." : "") << "\n";
  }
  if (trace) {
    trace->close();
    if (!o.quiet)
      std::cout << fmt::format("SM trace: {} ({} cycles of {} recorded, {} issues) and {}\n", trace->vcdPath().string(),
                               trace->recordedCycles(), trace->cycle(), trace->issuesRecorded(),
                               trace->gtkwPath().string());
  }
  bool rtl = false;
  for (auto& m : mechs) {
    rtl = rtl || m->rtlInLoop();
    // A mechanism's notes (a kernel that ran its original code, the RTL's
    // comparisons) are printed with --quiet too: rfsim compare's logs keep them.
    for (const std::string& line : m->endRun()) std::cout << line << "\n";
  }
  if (!o.quiet && !mech_traces.empty()) {
    std::string files;
    for (const auto& f : mech_traces) files += (files.empty() ? "" : ", ") + f.string();
    std::cout << fmt::format("mechanism traces (same cycles as the SM trace): {}\n", files);
  }
  // stats.json: one tree (docs/statistics.md).
  for (const auto& st : per) {
    nlohmann::json& w = tree[st->name()];
    w["passed"] = checks[st->name()]["passed"];
    w["detail"] = checks[st->name()]["detail"];
    w["summary"] = stats::groupToJson(*st);
    if (checks[st->name()].contains("measured")) w["measured"] = checks[st->name()]["measured"];
  }
  nlohmann::json run = {{"config", cfg.name},
                        {"mechanisms", enabled},
                        {"timing", o.timing},
                        {"size", o.large ? "large" : "small"},
                        {"max_regs", o.max_regs},
                        {"rtl", rtl}};
  // What was asked, for rfsim compare to check a run it would reuse.
  nlohmann::json request = rt::runRequest(o.config, config_yaml);
  request["workloads"] = nlohmann::json::array();
  for (const workloads::Workload* w : chosen) request["workloads"].push_back(w->name);
  request["size"] = o.large ? "large" : "small";
  request["code"] = o.code;
  request["timing"] = o.timing;
  request["max_regs"] = o.max_regs;
  run["request"] = request;
  if (o.timing) {
    // The GPU's modules, each with where its statistics are (docs/sm.md).
    dir.writeFile("hierarchy.json", hierarchyOf(cfg).dump(2) + "\n");
    run["hierarchy"] = "hierarchy.json";
  }
  nlohmann::json out = {{"schema", "rfsim-stats/2"}, {"run", run}, {"workloads", tree}};
  dir.writeFile("stats.json", out.dump(2) + "\n");
  dir.writeFile("checks.json", checks.dump(2) + "\n");
  dir.commit();
  std::cout << fmt::format("{} passed, {} failed\n", chosen.size() - failed, failed);
  std::cout << "results: " << dir.finalDir().string() << "\n";
  if (failed) throw Error(fmt::format("{} of {} workloads failed their CPU check (see {}/checks.json)", failed,
                                      chosen.size(), dir.finalDir().string()));
  return 0;
}

}  // namespace rfsim::app
