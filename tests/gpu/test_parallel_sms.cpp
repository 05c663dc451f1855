// sim.parallel_sms (gpu/gpu_top.h, KernelRunner::phase): the SMs of a
// quantum are stepped independently, their memory replies and blocks
// settled at its end, so the order they are stepped in changes nothing.
#include <catch2/catch.hpp>

#include "../sm_core/sm_test_util.h"
#include "common/error.h"
#include "config/config_io.h"
#include "config/gpu_config.h"
#include "gpu/kernel_runner.h"

using namespace rfsim;
using namespace rfsim::test;
using Mode = gpu::KernelRunner::Mode;

namespace {

config::GpuConfig parallelGpu() {
  config::GpuConfig cfg;
  cfg.sim.parallel_sms = true;
  return cfg;
}

// A graph of n vertices, 8 edges each, for the frontier kernels.
constexpr int kVertices = 16384, kDegree = 8;
std::vector<uint8_t> rowOffsets() {
  return bytesOf<int32_t>(kVertices + 1, [](size_t v) { return int32_t(v * kDegree); });
}
std::vector<uint8_t> columns() {
  return bytesOf<int32_t>(size_t(kVertices) * kDegree, [](size_t e) {
    // Onto a quarter of the vertices: many threads reach each of them.
    return int32_t((e / kDegree * 37 + e % kDegree * 101 + 1) % (kVertices / 4));
  });
}

// Rodinia-style BFS level (workloads/bfs): threads race on levels[u], read
// by one and written by another; which of them take the branch depends on
// what each sees.
Launch bfsLevel(func::GlobalMemory& mem) {
  Launch l{"bfs_level", {kVertices / 256, 1, 1}, {256, 1, 1}, 0, {}, {}};
  const uint64_t rows = buffer(mem, rowOffsets()), cols = buffer(mem, columns());
  const uint64_t frontier = buffer(mem, bytesOf<uint8_t>(kVertices, [](size_t v) { return uint8_t(v % 5 == 0); }));
  const uint64_t next = buffer(mem, std::vector<uint8_t>(kVertices, 0));
  const uint64_t levels = buffer(mem, bytesOf<int32_t>(kVertices, [](size_t v) { return v % 5 == 0 ? 0 : -1; }));
  const uint64_t changed = buffer(mem, std::vector<uint8_t>(4, 0));
  l.args = {arg(rows), arg(cols), arg(frontier), arg(next), arg(levels), arg(0), arg(kVertices), arg(changed)};
  l.outputs = {{next, kVertices}, {levels, size_t(kVertices) * 4}, {changed, 4}};
  return l;
}

// SSSP relaxation (workloads/kernels/graph_frontier.cu): atomicMin and a
// ticket atomicAdd whose old values are read, so stepped in SM order.
Launch ssspRelax(func::GlobalMemory& mem) {
  const int frontier_size = kVertices / 5;
  Launch l{"sssp_relax", {(frontier_size + 255) / 256, 1, 1}, {256, 1, 1}, 0, {}, {}};
  const uint64_t rows = buffer(mem, rowOffsets()), cols = buffer(mem, columns());
  const uint64_t weights =
      buffer(mem, bytesOf<uint32_t>(size_t(kVertices) * kDegree, [](size_t e) { return uint32_t(e * 7 % 13 + 1); }));
  const uint64_t frontier = buffer(mem, bytesOf<int32_t>(frontier_size, [](size_t t) { return int32_t(t * 5); }));
  const uint64_t dist = buffer(mem, bytesOf<uint32_t>(kVertices, [](size_t v) {
    return v % 5 == 0 ? 0u : v % 3 == 0 ? 10u : 0xffffffffu;
  }));
  const uint64_t next = buffer(mem, std::vector<uint8_t>(size_t(kVertices) * 4, 0));
  const uint64_t next_size = buffer(mem, std::vector<uint8_t>(4, 0));
  const uint64_t in_next = buffer(mem, std::vector<uint8_t>(size_t(kVertices) * 4, 0));
  l.args = {arg(rows), arg(cols), arg(weights), arg(frontier), arg(frontier_size), arg(dist),
            arg(next), arg(next_size), arg(in_next)};
  l.outputs = {{dist, size_t(kVertices) * 4}, {next, size_t(kVertices) * 4}, {next_size, 4}, {in_next, size_t(kVertices) * 4}};
  return l;
}

// Launches that spread over more blocks than SMs (blocks dealt at the
// phases), with misses, merges, stores, integer and floating-point
// reductions, calls, a racy kernel and one stepped in SM order.
std::vector<Case> parallelCases() {
  std::vector<Case> v;
  v.push_back({"saxpy", workloadModules("saxpy"), [](func::GlobalMemory& mem) {
                 return saxpyLaunch(mem, 16384, {64, 1, 1});
               }});
  v.push_back({"sgemm", workloadModules("sgemm"), [](func::GlobalMemory& mem) { return sgemmLaunch(mem, 64); }});
  for (const Case& c : cases())
    if (c.name == "histogram" || c.name == "fib" || c.name == "reduction") v.push_back(c);
  v.push_back({"bfs", workloadModules("bfs"), bfsLevel});
  v.push_back({"sssp", {kWl + "kernels/graph_frontier.ptx"}, ssspRelax});
  return v;
}

// Case c's kernel loaded afresh, its memory made, and run with cfg and opt.
Timed runCase(const Case& c, const config::GpuConfig& cfg, const gpu::KernelRunner::Options& opt) {
  Loaded probe(c.ptx, "");
  const std::string kernel = c.make(probe.mem).kernel;
  Loaded ld(c.ptx, kernel);
  const Launch l = c.make(ld.mem);
  return runTimed(ld, l, cfg, ld.tree_regs, opt);
}

}  // namespace

TEST_CASE("parallel SMs: stepping the SMs in reverse order gives the same statistics and output", "[gpu][parallel]") {
  const config::GpuConfig cfg = parallelGpu();
  for (const Case& c : parallelCases()) {
    INFO(c.name);
    gpu::KernelRunner::Options fwd{Mode::SystemC, 8};
    gpu::KernelRunner::Options rev = fwd;
    rev.reverse_steps = true;
    const Timed f = runCase(c, cfg, fwd);
    const Timed r = runCase(c, cfg, rev);
    CHECK(f.r.cycles == r.r.cycles);
    INFO(diffKeys(f.stats, r.stats));
    CHECK(f.stats == r.stats);
    CHECK(f.out == r.out);
  }
}

TEST_CASE("parallel SMs: the output of the serial mode, the cycles close to it", "[gpu][parallel]") {
  const config::GpuConfig par = parallelGpu();
  config::GpuConfig ser = par;
  ser.sim.parallel_sms = false;
  for (const Case& c : parallelCases()) {
    INFO(c.name);
    const Timed p = runCase(c, par, {Mode::SystemC, 8});
    const Timed s = runCase(c, ser, {Mode::SystemC, 8});
    if (c.name != "bfs" && c.name != "sssp" && c.name != "reduction") {  // racy, or their sums in another order
      CHECK(p.out == s.out);
      CHECK(p.r.warp_instrs == s.r.warp_instrs);
    }
    // Requests meet the memory side in cycle order rather than SM order, and
    // a block starts at the quantum's end rather than when room appears.
    CHECK(double(p.r.cycles) == Approx(double(s.r.cycles)).epsilon(0.10));
  }
}

TEST_CASE("parallel SMs: a quantum longer than the shortest memory round trip is refused", "[gpu][parallel][config]") {
  config::GpuConfig c = parallelGpu();
  CHECK_NOTHROW(config::validate(c, "test"));
  c.sim.quantum_cycles = 2 * c.icnt.latency + c.l2.cache.latency + 1;
  try {
    config::validate(c, "test");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK_THAT(e.what(), Catch::Contains("sim.quantum_cycles") && Catch::Contains("icnt.latency"));
  }
  c.sim.quantum_cycles = 16;
  c.sim.sample = config::SampleMode::Blocks;
  CHECK_THROWS_AS(config::validate(c, "test"), Error);
}

TEST_CASE("parallel SMs: 1, 2 and 4 host threads give the same statistics and output", "[gpu][parallel][threads]") {
  for (const Case& c : parallelCases()) {
    INFO(c.name);
    Timed one;
    for (uint32_t threads : {1u, 2u, 4u}) {
      INFO(threads << " threads");
      config::GpuConfig cfg = parallelGpu();
      cfg.sim.threads = threads;
      const Timed t = runCase(c, cfg, {Mode::SystemC, 8});
      if (threads == 1) {
        one = t;
        continue;
      }
      CHECK(t.r.cycles == one.r.cycles);
      INFO(diffKeys(t.stats, one.stats));
      CHECK(t.stats == one.stats);
      CHECK(t.out == one.out);
    }
  }
}
