// Runaway kernels: a kernel that never ends is stopped with the state of its
// warps, in timing and in functional runs: by the livelock rule
// (pipeline.livelock_cycles: warps issue, none stores, updates memory
// atomically, arrives at a barrier or exits), by the livelock proof (every
// warp came back to a state it had, pipeline.livelock_proof_cycles), and by
// the caps on a launch's
// cycles (sim.max_cycles) and warp instructions (sim.max_instructions).
#include <catch2/catch.hpp>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "common/error.h"
#include "config/config_io.h"
#include "func/memory.h"
#include "runtime/runtime.h"

using namespace rfsim;
using Catch::Matchers::Contains;

namespace {

config::GpuConfig small(const std::vector<std::string>& sets) {
  config::GpuConfig c = config::loadConfig(std::string(RFSIM_SOURCE_DIR) + "/configs/v100.yaml");
  config::applyOverride(c, "gpu.num_sms=2");
  for (const auto& s : sets) config::applyOverride(c, s);
  config::validate(c, "test");
  return c;
}

// Launches `kernel` of tests/gpu/data/spin.ptx on 2 blocks of 64 threads
// (count: n iterations) and returns the error it stopped with ("" if none).
std::string launch(const config::GpuConfig& cfg, bool timing, const std::string& kernel, uint32_t n = 0) {
  rt::DeviceOptions o;
  o.timing = timing;
  o.gpu = &cfg;
  rt::Device dev(o);
  dev.loadModule(std::filesystem::path(RFSIM_SOURCE_DIR) / "tests/gpu/data/spin.ptx");
  const uint64_t buf = dev.malloc(64 * 4);
  std::vector<uint8_t> zero(64 * 4, 0);
  dev.memcpyHtoD(buf, zero.data(), zero.size());
  rt::KernelArgs args;
  args.ptr(buf);
  if (kernel == "count" || kernel == "handoff") args.u32(n);
  try {
    dev.launch(kernel, {2, 1, 1}, {64, 1, 1}, args);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a kernel spinning on a flag is stopped as a livelock, naming the kernel, its warps and PCs",
          "[gpu][runaway]") {
  // The proof off (armed only after more cycles than the window): the window's rule.
  const config::GpuConfig cfg = small({"pipeline.livelock_cycles=20000", "pipeline.livelock_proof_cycles=1000000000"});
  SECTION("timing") {
    const std::string e = launch(cfg, true, "spin");
    CHECK_THAT(e, Contains("kernel spin: stopped as a runaway kernel, livelock on sm"));
    CHECK_THAT(e, Contains("pipeline.livelock_cycles 20000"));
    // The SM's state dump: every warp with its PC and source line.
    CHECK_THAT(e, Contains("warp 0: ready, spin pc ") && Contains("warp 1: ready, spin pc ") && Contains("(line "));
  }
  SECTION("functional") {
    const std::string e = launch(cfg, false, "spin");
    CHECK_THAT(e, Contains("spin.ptx") && Contains("kernel spin block (0,0,0): stopped as a runaway kernel"));
    CHECK_THAT(e, Contains("livelock") && Contains("pipeline.livelock_cycles 20000"));
    CHECK_THAT(e, Contains("warp 0: spin pc ") && Contains("warp 1: spin pc ") && Contains("(line "));
  }
}

TEST_CASE("a long kernel that stores is not a livelock, the caps on cycles and instructions stop it",
          "[gpu][runaway]") {
  // 2000 iterations of 4 instructions, a store in each: far past a
  // 2000-cycle livelock window, never 2000 cycles without a store.
  SECTION("no livelock") {
    const config::GpuConfig cfg = small({"pipeline.livelock_cycles=2000"});
    CHECK(launch(cfg, true, "count", 2000) == "");
    CHECK(launch(cfg, false, "count", 2000) == "");
  }
  SECTION("sim.max_cycles") {
    const std::string e = launch(small({"sim.max_cycles=5000"}), true, "count", 2000);
    CHECK_THAT(e, Contains("kernel count: stopped as a runaway kernel at cycle ") &&
                      Contains("sim.max_cycles (5000; raise it with --max-cycles") && Contains("warp 0:"));
  }
  SECTION("sim.max_instructions, timing and functional") {
    const config::GpuConfig cfg = small({"sim.max_instructions=3000"});
    std::string e = launch(cfg, true, "count", 2000);
    CHECK_THAT(e, Contains("kernel count: stopped as a runaway kernel") &&
                      Contains("sim.max_instructions (3000; raise it with --max-instructions") && Contains("warp 0:"));
    e = launch(cfg, false, "count", 2000);
    CHECK_THAT(e, Contains("kernel count block (0,0,0): stopped as a runaway kernel") &&
                      Contains("sim.max_instructions (3000 warp instructions") && Contains("warp 0: count pc "));
  }
}

TEST_CASE("the livelock proof stops a spinning kernel soon after its window, a store in its loop or not",
          "[gpu][runaway]") {
  // The window's rule would take 200 M cycles (the default); the proof is
  // looked for after 5000 without a write others can see.
  const config::GpuConfig cfg = small({"pipeline.livelock_proof_cycles=5000"});
  for (const char* k : {"spin", "spin_local"}) {
    const std::string kernel = k;
    SECTION(kernel + ", timing") {
      const std::string e = launch(cfg, true, kernel);
      CHECK_THAT(e, Contains("kernel " + kernel + ": stopped as a runaway kernel at cycle ") &&
                        Contains("livelock, proven") && Contains("pipeline.livelock_proof_cycles") &&
                        Contains("warp 0: ready, " + kernel + " pc "));
    }
    SECTION(kernel + ", functional") {
      const std::string e = launch(cfg, false, kernel);
      CHECK_THAT(e, Contains("kernel " + kernel + " block (0,0,0): stopped as a runaway kernel") &&
                        Contains("livelock: each live warp is proven to repeat") && Contains("warp 1: " + kernel + " pc "));
    }
  }
}

TEST_CASE("the livelock proof does not stop a warp that waits for one that computes without storing",
          "[gpu][runaway]") {
  // Block 1 spins (its state repeats) for as long as block 0 computes,
  // far past a 100-cycle proof window; block 0's state never repeats.
  const config::GpuConfig cfg = small({"pipeline.livelock_proof_cycles=100"});
  CHECK(launch(cfg, true, "handoff", 20000) == "");
  CHECK(launch(cfg, false, "handoff", 20000) == "");
  // On one SM, the two blocks side by side.
  const config::GpuConfig one = small({"pipeline.livelock_proof_cycles=100", "gpu.num_sms=1"});
  CHECK(launch(one, true, "handoff", 20000) == "");
}

TEST_CASE("parallel SMs: runaway kernels are stopped as in the serial mode on 2 threads", "[gpu][runaway][parallel]") {
  const std::vector<std::string> par = {"sim.parallel_sms=true", "sim.threads=2"};
  auto with = [&](std::vector<std::string> sets) {
    sets.insert(sets.end(), par.begin(), par.end());
    return small(sets);
  };
  CHECK_THAT(launch(with({"pipeline.livelock_cycles=20000", "pipeline.livelock_proof_cycles=1000000000"}), true, "spin"),
             Contains("kernel spin: stopped as a runaway kernel, livelock on sm"));
  CHECK_THAT(launch(with({"pipeline.livelock_proof_cycles=5000"}), true, "spin"),
             Contains("kernel spin: stopped as a runaway kernel at cycle ") && Contains("livelock, proven"));
  CHECK_THAT(launch(with({"sim.max_instructions=3000"}), true, "count", 2000),
             Contains("kernel count: stopped as a runaway kernel") && Contains("sim.max_instructions (3000"));
  CHECK(launch(with({"pipeline.livelock_cycles=2000"}), true, "count", 2000) == "");
  // A block spinning on what the other computes: not a livelock, and the
  // flag it waits for reaches it at a quantum's end.
  CHECK(launch(with({"pipeline.livelock_proof_cycles=100"}), true, "handoff", 20000) == "");
}
