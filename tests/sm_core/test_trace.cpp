// The SM pipeline waveform (model/sm/core/sm_trace.h): a VCD of SM 0 and its
// GTKWave save file, written while kernels run on the SystemC-clocked SM.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "sm_test_util.h"
#include "config/gpu_config.h"
#include "gpu/simulation.h"
#include "gpu/kernel_runner.h"
#include "mem/tlm/hierarchy.h"
#include "sm/core/sm_trace.h"
#include "stats/stats.h"

using namespace rfsim;
using namespace rfsim::test;

namespace {

std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// A minimal VCD reader: the declared signals and each one's value changes.
struct Vcd {
  std::map<std::string, std::string> id_of;  // "scope.name" -> id code
  std::map<std::string, std::vector<std::pair<uint64_t, uint64_t>>> changes;  // id -> (time, value)
  uint64_t end_time = 0;
  std::string timescale;
};

Vcd parseVcd(const std::string& text) {
  Vcd v;
  std::istringstream in(text);
  std::string tok, scope;
  std::vector<std::string> scopes;
  bool defs = true;
  uint64_t t = 0;
  while (in >> tok) {
    if (defs) {
      if (tok == "$scope") {
        std::string kind, name;
        in >> kind >> name >> tok;
        scopes.push_back(name);
      } else if (tok == "$upscope") {
        in >> tok;
        scopes.pop_back();
      } else if (tok == "$var") {
        std::string type, width, id, name, range;
        in >> type >> width >> id >> name >> range >> tok;
        std::string full;
        for (const auto& s : scopes) full += s + ".";
        v.id_of[full + name] = id;
      } else if (tok == "$timescale") {
        in >> v.timescale >> tok;
      } else if (tok == "$enddefinitions") {
        in >> tok;
        defs = false;
      }
      continue;
    }
    if (tok[0] == '#') {
      t = std::stoull(tok.substr(1));
      v.end_time = t;
    } else if (tok[0] == 'b') {
      std::string id;
      in >> id;
      v.changes[id].push_back({t, std::stoull(tok.substr(1), nullptr, 2)});
    }
  }
  return v;
}

// Cycles in [from, to] (trace cycles) in which `id` was not `none`.
uint64_t cyclesNot(const Vcd& v, const std::string& id, uint64_t none, uint64_t from = 0,
                   uint64_t to = UINT64_MAX) {
  const auto& ch = v.changes.at(id);
  uint64_t n = 0;
  for (size_t i = 0; i < ch.size(); ++i) {
    const uint64_t a = std::max(ch[i].first, from);
    const uint64_t b = std::min(i + 1 < ch.size() ? ch[i + 1].first : v.end_time, to == UINT64_MAX ? to : to + 1);
    if (ch[i].second != none && b > a) n += b - a;
  }
  return n;
}

struct Run {
  uint64_t cycles = 0, warp_instrs = 0;
};

// Two saxpy launches (launches follow each other in trace time) into `trace`.
Run runTraced(sm::SmTrace& trace) {
  const config::GpuConfig cfg;
  gpu::Simulation sim;  // every traced run starts from an empty L2; its two launches share it
  Loaded ld(kWl + "saxpy/saxpy.ptx", "saxpy");
  Run r;
  for (int k = 0; k < 2; ++k) {
    const int n = 2048 + 1024 * k;
    Launch l{"saxpy", {uint32_t(n / 256), 1, 1}, {256, 1, 1}, 0, {}, {}};
    const uint64_t x = buffer(ld.mem, bytesOf<float>(n, [](size_t i) { return float(i % 29) * 0.5f; }));
    const uint64_t y = buffer(ld.mem, bytesOf<float>(n, [](size_t i) { return float(i % 7) - 3; }));
    l.args = {arg(n), arg(2.5f), arg(x), arg(y)};
    const func::LaunchSetup setup = ld.prog->setupLaunch(l.kernel, l.grid, l.block, l.args, l.dynamic_shared);
    rt::LaunchStats ls;
    // One SM: the trace is the SM's (with many, SM 0's share of the blocks).
    gpu::KernelRunner kr(cfg, *ld.prog, setup, ls, ld.tree_regs, nullptr, {gpu::KernelRunner::Mode::SystemC, 1, true, &sim});
    kr.sm().setTrace(&trace);
    const gpu::KernelRunResult res = kr.run();
    r.cycles += res.cycles;
    r.warp_instrs += res.warp_instrs;
  }
  trace.close();
  return r;
}

}  // namespace

TEST_CASE("the SM trace records every issue of the run into a VCD with a GTKWave save file", "[trace]") {
  const config::GpuConfig cfg;
  const auto dir = std::filesystem::temp_directory_path() / ("rfsim-trace-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  // Removes the folder after the traces below are closed (destroyed in reverse order).
  struct RemoveAtEnd {
    std::filesystem::path p;
    ~RemoveAtEnd() {
      std::error_code ec;
      std::filesystem::remove_all(p, ec);
    }
  } cleanup{dir};
  const uint32_t ns = cfg.sm.num_schedulers;

  sm::SmTrace full(dir / "full.vcd", ns);
  const Run r = runTraced(full);
  REQUIRE(r.cycles < sm::SmTrace::kDefaultMaxCycles);
  CHECK(full.cycle() == r.cycles);  // launch after launch, no gap
  CHECK(full.recordedCycles() == r.cycles);
  CHECK(full.issuesRecorded() == r.warp_instrs);

  const Vcd v = parseVcd(slurp(dir / "full.vcd"));
  CHECK(v.timescale == "1ns");
  for (const char* s : {"gpu.sm0.fetch.ibuf_fills", "gpu.sm0.fetch.l1i_misses", "gpu.sm0.opcoll.busy_collectors",
                        "gpu.sm0.opcoll.bank_conflicts", "gpu.sm0.opcoll.rf_reads", "gpu.sm0.opcoll.rf_writes",
                        "gpu.sm0.exec.completed", "gpu.sm0.exec.wb_refused"})
    CHECK(v.id_of.count(s) == 1);
  uint64_t issues = 0;
  for (uint32_t i = 0; i < ns; ++i) {
    for (const char* f : {"warp", "pc", "op", "unit", "stall"})
      CHECK(v.id_of.count("gpu.sm0.issue.s" + std::to_string(i) + "_" + f) == 1);
    issues += cyclesNot(v, v.id_of.at("gpu.sm0.issue.s" + std::to_string(i) + "_warp"), 0xffffffffull);
  }
  CHECK(v.end_time == r.cycles);
  // One scheduler-cycle with an issued warp per warp instruction.
  CHECK(issues == r.warp_instrs);
  CHECK(cyclesNot(v, v.id_of.at("gpu.sm0.exec.completed"), 0) > 0);
  CHECK(cyclesNot(v, v.id_of.at("gpu.sm0.fetch.l1i_misses"), 0) > 0);
  CHECK(cyclesNot(v, v.id_of.at("gpu.sm0.opcoll.rf_reads"), 0) > 0);

  const std::string g = slurp(dir / "full.gtkw");
  CHECK(g.find("[dumpfile] \"" + std::filesystem::absolute(dir / "full.vcd").string() + "\"") != std::string::npos);
  for (const char* grp : {"-fetch", "-issue", "-operand collector", "-execute / writeback"})
    CHECK(g.find(grp) != std::string::npos);
  CHECK(g.find("gpu.sm0.issue.s0_warp[31:0]") != std::string::npos);
  CHECK(g.find("gpu.sm0.opcoll.rf_reads[15:0]") != std::string::npos);

  SECTION("a window records only its cycles, with the same issues as the full trace there") {
    const uint64_t first = r.cycles / 3, last = r.cycles / 3 * 2;
    sm::SmTrace win(dir / "win.vcd", ns, first, last);
    const Run r2 = runTraced(win);
    CHECK(r2.cycles == r.cycles);
    CHECK(win.recordedCycles() == last - first + 1);
    const Vcd w = parseVcd(slurp(dir / "win.vcd"));
    CHECK(w.end_time == last + 1);
    uint64_t wi = 0, fi = 0;
    for (uint32_t i = 0; i < ns; ++i) {
      const std::string s = "gpu.sm0.issue.s" + std::to_string(i) + "_warp";
      CHECK(w.changes.at(w.id_of.at(s)).front().first == first);
      wi += cyclesNot(w, w.id_of.at(s), 0xffffffffull);
      fi += cyclesNot(v, v.id_of.at(s), 0xffffffffull, first, last);
    }
    CHECK(wi == fi);
    CHECK(wi == win.issuesRecorded());
    CHECK(wi > 0);
    CHECK(slurp(dir / "win.gtkw").find("[timestart] " + std::to_string(first)) != std::string::npos);
  }
  SECTION("window syntax") {
    uint64_t a = 9, b = 9;
    sm::SmTrace::parseWindow("100:200", a, b);
    CHECK((a == 100 && b == 200));
    sm::SmTrace::parseWindow(":50", a, b);
    CHECK((a == 0 && b == 50));
    sm::SmTrace::parseWindow("7:", a, b);
    CHECK((a == 7 && b == UINT64_MAX));
    CHECK_THROWS(sm::SmTrace::parseWindow("x:1", a, b));
    CHECK_THROWS(sm::SmTrace::parseWindow("5", a, b));
    CHECK_THROWS(sm::SmTrace(dir / "bad.vcd", ns, 10, 5));
  }
}
