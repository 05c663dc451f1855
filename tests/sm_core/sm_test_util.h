// Shared by the SM timing-model tests: a PTX file compiled by the back end
// into a Program over its own memory, and the launches the tests build.
#pragma once

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../func/machine_helpers.h"  // test::arg
#include "backend/backend.h"
#include "func/memory.h"
#include "func/program.h"
#include "gpu/kernel_runner.h"
#include "ptx/link.h"
#include "ptx/parser.h"
#include "stats/stats.h"
#include "workloads/workload.h"

namespace rfsim::test {

// A statistic's path under an SM's group from its short name: the SM's own
// ("cycles") or its unit's ("rf_reads" -> "opcoll.rf_reads", sm/core/sm.h).
inline std::string smStat(const std::string& k) {
  static const std::pair<const char*, std::vector<const char*>> units[] = {
      {"fetch", {"l1i_hits", "l1i_misses", "ibuffer_flushes"}},
      {"issue", {"stall_cycles", "issued_cycles", "dual_issues", "regalloc_stalls", "gate_stalls", "trap_ops",
                 "trap_wait_cycles", "activations", "deactivations"}},
      {"opcoll", {"rf_reads", "rf_writes", "bank_conflicts", "write_port_conflicts", "writeback_retries",
                  "collector_full", "reuse_hits", "collector_occupancy_sum", "collector_occupancy"}},
      {"simt", {"divergent_branches"}},
      {"exec", {"unit_busy", "warp_instrs_by_unit", "thread_instrs_by_unit"}},
      {"ldst", {"mem_accesses", "const_accesses", "shared_accesses", "shared_passes", "shared_extra_passes",
                "trap_stores", "trap_loads"}},
  };
  for (const auto& [unit, names] : units)
    for (const char* n : names)
      if (k == n) return std::string(unit) + "." + k;
  return k;
}

// Several PTX files are linked first (ptx/link.h): a workload's modules.
struct Loaded {
  func::GlobalMemory mem;
  std::unique_ptr<func::Program> prog;
  uint32_t tree_regs = 32;
  Loaded(const std::vector<std::string>& ptx_files, const std::string& kernel) {
    backend::CompiledModule cm =
        backend::compileModule(ptx::parseAndLink(std::vector<std::filesystem::path>(ptx_files.begin(), ptx_files.end())));
    if (const auto* f = cm.find(kernel)) tree_regs = f->tree_regs;
    prog = std::make_unique<func::Program>(std::move(cm.machine), mem);
  }
  Loaded(const std::string& ptx_file, const std::string& kernel)
      : Loaded(std::vector<std::string>{ptx_file}, kernel) {}
  explicit Loaded(ptx::Module machine) { prog = std::make_unique<func::Program>(std::move(machine), mem); }
};

inline uint64_t buffer(func::GlobalMemory& mem, const std::vector<uint8_t>& bytes) {
  const uint64_t a = mem.allocate(bytes.size(), func::AllocKind::Malloc);
  mem.write(a, bytes.data(), bytes.size());
  return a;
}
template <class T, class F>
inline std::vector<uint8_t> bytesOf(size_t n, F gen) {
  std::vector<uint8_t> b(n * sizeof(T));
  for (size_t i = 0; i < n; ++i) {
    const T v = gen(i);
    std::memcpy(b.data() + i * sizeof(T), &v, sizeof(T));
  }
  return b;
}

struct Launch {
  std::string kernel;
  rt::Dim3 grid, block;
  uint32_t dynamic_shared = 0;
  std::vector<std::vector<uint8_t>> args;
  std::vector<std::pair<uint64_t, size_t>> outputs;
};
using MakeLaunch = std::function<Launch(func::GlobalMemory&)>;

inline std::vector<std::vector<uint8_t>> readOutputs(func::GlobalMemory& mem, const Launch& l) {
  std::vector<std::vector<uint8_t>> out;
  for (auto [a, n] : l.outputs) {
    out.emplace_back(n);
    mem.read(out.back().data(), a, n);
  }
  return out;
}

inline const std::string kWl = std::string(RFSIM_SOURCE_DIR) + "/workloads/";

// One launch on the GPU timing model: the cycles, every statistic (flat)
// and the launch's outputs.
struct Timed {
  gpu::KernelRunResult r;
  nlohmann::json stats;
  std::vector<std::vector<uint8_t>> out;
};

inline Timed runTimed(Loaded& ld, const Launch& l, const config::GpuConfig& cfg, uint32_t regs,
                      gpu::KernelRunner::Options opt = {}) {
  const func::LaunchSetup setup = ld.prog->setupLaunch(l.kernel, l.grid, l.block, l.args, l.dynamic_shared);
  rt::LaunchStats ls;
  stats::Group root(nullptr, "root");
  Timed t;
  {
    // Every run starts from an empty memory hierarchy unless opt.sim is
    // given: the runner's own simulation, a fresh GPU.
    gpu::KernelRunner kr(cfg, *ld.prog, setup, ls, regs, &root, opt);
    t.r = kr.run();
    t.stats = stats::toFlatJson(root);
  }
  t.out = readOutputs(ld.mem, l);
  return t;
}

// One launch of a hand-written machine kernel `k(.param .u64 out)`: `body`
// after its declarations (R0..R63, RD0..RD15, P0..P3, 2 KiB of shared
// `smem`) and the load of `out` into RD8; one block of `threads` threads.
inline Timed runMicro(const std::string& body, const config::GpuConfig& cfg, uint32_t threads = 32) {
  const std::string text =
      ".version 9.0\n.target sm_75\n.address_size 64\n.shared .align 16 .b8 smem[2048];\n"
      ".visible .entry k(.param .u64 out)\n{\n  .reg .b32 %R<64>;\n  .reg .b64 %RD<16>;\n  .reg .pred %P<4>;\n"
      "  ld.param.u64 %RD8, [out];\n" + body + "  ret;\n}\n";
  Loaded ld(parseMachine(text));
  const uint64_t out = buffer(ld.mem, std::vector<uint8_t>(4096, 0));
  Launch l{"k", {1, 1, 1}, {threads, 1, 1}, 0, {arg(out)}, {{out, 16}}};
  return runTimed(ld, l, cfg, 64);
}

// The keys of flat statistics `a` whose values differ in `b` (for a readable failure).
inline std::string diffKeys(const nlohmann::json& a, const nlohmann::json& b) {
  std::string d;
  for (auto it = a.begin(); it != a.end(); ++it)
    if (!b.contains(it.key()) || b.at(it.key()) != it.value())
      d += it.key() + ": " + it.value().dump() + " vs " + (b.contains(it.key()) ? b.at(it.key()).dump() : "-") + "\n";
  return d;
}

// A workload's PTX modules, as rfsim run loads them: its kernels' unit and
// the units it links.
inline std::vector<std::string> workloadModules(const std::string& name) {
  const workloads::Workload* w = workloads::find(name);
  if (!w) throw std::runtime_error("no workload " + name);
  std::vector<std::string> files;
  for (const std::string& m : w->modules()) files.push_back(std::string(RFSIM_SOURCE_DIR) + "/" + m);
  return files;
}

// The workload launches the timing tests run (small sizes).
struct Case {
  std::string name;
  std::vector<std::string> ptx;  // the workload's modules
  MakeLaunch make;
};

inline Launch saxpyLaunch(func::GlobalMemory& mem, int n, rt::Dim3 grid) {
  Launch l{"saxpy", grid, {256, 1, 1}, 0, {}, {}};
  const uint64_t x = buffer(mem, bytesOf<float>(n, [](size_t i) { return float(i % 29) * 0.5f; }));
  const uint64_t y = buffer(mem, bytesOf<float>(n, [](size_t i) { return float(i % 7) - 3; }));
  l.args = {arg(n), arg(2.5f), arg(x), arg(y)};
  l.outputs = {{y, size_t(n) * 4}};
  return l;
}

inline Launch sgemmLaunch(func::GlobalMemory& mem, int n) {
  const uint32_t tiles = uint32_t(n / 16);
  Launch l{"sgemm_tiled", {tiles, tiles, 1}, {16, 16, 1}, 0, {}, {}};
  auto mat = [&](int seed) {
    return buffer(mem, bytesOf<float>(size_t(n) * n, [=](size_t i) { return float((i * 7 + seed) % 13) - 6; }));
  };
  const uint64_t a = mat(1), b = mat(2), c = mat(3);
  l.args = {arg(n), arg(n), arg(n), arg(1.5f), arg(a), arg(b), arg(0.5f), arg(c)};
  l.outputs = {{c, size_t(n) * n * 4}};
  return l;
}

inline std::vector<Case> cases() {
  std::vector<Case> v;
  v.push_back({"saxpy", workloadModules("saxpy"), [](func::GlobalMemory& mem) {
                 return saxpyLaunch(mem, 4096, {4, 1, 1});
               }});
  v.push_back({"sgemm", workloadModules("sgemm"), [](func::GlobalMemory& mem) { return sgemmLaunch(mem, 32); }});
  v.push_back({"reduction", workloadModules("reduction"), [](func::GlobalMemory& mem) {
                 const uint32_t n = 1000;
                 Launch l{"reduce_sum", {4, 1, 1}, {128, 1, 1}, 128 * 4, {}, {}};
                 const uint64_t in = buffer(mem, bytesOf<float>(n, [](size_t i) { return float(i % 17) * 0.25f; }));
                 const uint64_t out = buffer(mem, std::vector<uint8_t>(16, 0));
                 l.args = {arg(in), arg(out), arg(n)};
                 l.outputs = {{out, 16}};
                 return l;
               }});
  v.push_back({"histogram", workloadModules("histogram"), [](func::GlobalMemory& mem) {
                 const uint32_t n = 5000;
                 Launch l{"histogram256", {3, 1, 1}, {128, 1, 1}, 0, {}, {}};
                 const uint64_t data = buffer(mem, bytesOf<uint8_t>(n, [](size_t i) { return uint8_t(i * i * 31 + i); }));
                 const uint64_t bins = buffer(mem, std::vector<uint8_t>(256 * 4, 0));
                 l.args = {arg(data), arg(n), arg(bins)};
                 l.outputs = {{bins, 256 * 4}};
                 return l;
               }});
  v.push_back({"fib", workloadModules("fib"), [](func::GlobalMemory& mem) {
                 const int count = 80;
                 Launch l{"fib_kernel", {2, 1, 1}, {64, 1, 1}, 0, {}, {}};
                 const uint64_t nn = buffer(mem, bytesOf<uint32_t>(count, [](size_t i) { return uint32_t(i % 12); }));
                 const uint64_t out = buffer(mem, std::vector<uint8_t>(count * 4, 0));
                 l.args = {arg(nn), arg(out), arg(count)};
                 l.outputs = {{out, count * 4}};
                 return l;
               }});
  return v;
}

}  // namespace rfsim::test
