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

// The keys whose values differ (for a readable failure).
std::string diffKeys(const nlohmann::json& a, const nlohmann::json& b) {
  std::string d;
  for (auto it = a.begin(); it != a.end(); ++it)
    if (!b.contains(it.key()) || b.at(it.key()) != it.value())
      d += it.key() + ": " + it.value().dump() + " vs " + (b.contains(it.key()) ? b.at(it.key()).dump() : "-") + "\n";
  return d;
}

// Launches that spread over more blocks than SMs (blocks dealt at the
// phases), with misses, merges, stores, integer atomics and calls.
std::vector<Case> parallelCases() {
  std::vector<Case> v;
  v.push_back({"saxpy", workloadModules("saxpy"), [](func::GlobalMemory& mem) {
                 return saxpyLaunch(mem, 16384, {64, 1, 1});
               }});
  v.push_back({"sgemm", workloadModules("sgemm"), [](func::GlobalMemory& mem) { return sgemmLaunch(mem, 64); }});
  for (const Case& c : cases())
    if (c.name == "histogram" || c.name == "fib") v.push_back(c);
  return v;
}

}  // namespace

TEST_CASE("parallel SMs: stepping the SMs in reverse order gives the same statistics and output", "[gpu][parallel]") {
  const config::GpuConfig cfg = parallelGpu();
  for (const Case& c : parallelCases()) {
    INFO(c.name);
    Loaded probe(c.ptx, "");
    const std::string kernel = c.make(probe.mem).kernel;
    Loaded ka(c.ptx, kernel), kb(c.ptx, kernel);
    const Launch ma = c.make(ka.mem), mb = c.make(kb.mem);
    gpu::KernelRunner::Options fwd{Mode::SystemC, 8};
    gpu::KernelRunner::Options rev = fwd;
    rev.reverse_steps = true;
    const Timed f = runTimed(ka, ma, cfg, ka.tree_regs, fwd);
    const Timed r = runTimed(kb, mb, cfg, kb.tree_regs, rev);
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
    Loaded probe(c.ptx, "");
    const std::string kernel = c.make(probe.mem).kernel;
    Loaded a(c.ptx, kernel), b(c.ptx, kernel);
    const Launch la = c.make(a.mem), lb = c.make(b.mem);
    const Timed p = runTimed(a, la, par, a.tree_regs, {Mode::SystemC, 8});
    const Timed s = runTimed(b, lb, ser, b.tree_regs, {Mode::SystemC, 8});
    CHECK(p.out == s.out);
    CHECK(p.r.warp_instrs == s.r.warp_instrs);
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
