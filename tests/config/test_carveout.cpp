// The driver's carve-out of the unified L1D/shared array (config/carveout.h):
// the capacity chosen for each shared-memory size, the application's
// preference, the L1D it leaves, and the configurations it refuses.
#include <catch2/catch.hpp>

#include <functional>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "config/carveout.h"
#include "config/config_io.h"

using namespace rfsim;
using namespace rfsim::config;
using Catch::Matchers::Contains;

namespace {

GpuConfig named(const std::string& name) {
  return loadConfig(std::string(RFSIM_SOURCE_DIR) + "/configs/" + name + ".yaml");
}

// A kernel of 128 threads at 32 registers using `shared` bytes per block.
KernelFootprint kernelUsing(uint32_t shared) { return KernelFootprint{128, 32, shared}; }

std::string violation(const GpuConfig& c) {
  try {
    validate(c, "test");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("V100: the smallest capacity that keeps the kernel's occupancy, the rest L1D", "[config][carveout]") {
  const GpuConfig v100 = named("v100");
  // 128 threads x 32 registers: 16 blocks by registers and warps, so the
  // blocks' shared memory is 16 x the block's (rounded to 256 bytes) until
  // shared memory itself limits them.
  struct Case {
    uint32_t shared_per_block;  // bytes
    uint32_t shared_kb;         // chosen
  };
  const Case cases[] = {
      {0, 0},              // no shared memory: all 128 KiB are L1D
      {256, 8},            // 16 x 256 B = 4 KiB
      {512, 8},            // 16 x 512 B = 8 KiB exactly
      {513, 16},           // 768 B each: 12 KiB
      {1024, 16},          // 16 KiB
      {2048, 32},          // 32 KiB
      {4096, 64},          // 64 KiB
      {4097, 96},          // 16 x 4352 B = 68 KiB: above 64
      {6144, 96},          // 16 x 6 KiB = 96 KiB
      {8192, 96},          // shared memory limits the blocks to 12 (96 KiB)
      {40 * 1024, 96},     // 2 blocks of 40 KiB = 80 KiB
      {96 * 1024, 96},     // one block of all of it
  };
  for (const Case& c : cases) {
    INFO(c.shared_per_block << " bytes per block");
    const Carveout co = chooseCarveout(v100, kernelUsing(c.shared_per_block));
    CHECK(co.chosen);
    CHECK(co.shared_kb == c.shared_kb);
    CHECK(co.l1d_kb == 128 - c.shared_kb);
    // The 4 sets of the 32 KiB L1D stay; the ways follow the capacity.
    CHECK(co.l1d_assoc == co.l1d_kb * 1024 / (4 * 128));
    // The occupancy is the one the largest capacity gives.
    CHECK(computeOccupancy(withCarveout(v100, co), kernelUsing(c.shared_per_block)).blocks ==
          computeOccupancy(v100, kernelUsing(c.shared_per_block)).blocks);
  }
}

TEST_CASE("V100: the launch's configuration has the carve-out's sizes", "[config][carveout]") {
  const GpuConfig v100 = named("v100");
  const GpuConfig none = withCarveout(v100, chooseCarveout(v100, kernelUsing(0)));
  CHECK(none.shared.size_kb == 0);
  CHECK(none.l1d.size_kb == 128);
  CHECK(none.l1d.assoc == 256);
  CHECK(none.l1d.unified);
  CHECK(none.l2.cache.size_kb == v100.l2.cache.size_kb);
  const GpuConfig most = withCarveout(v100, chooseCarveout(v100, kernelUsing(48 * 1024)));
  CHECK(most.shared.size_kb == 96);
  CHECK(most.l1d.size_kb == 32);
  CHECK(most.l1d.assoc == 64);  // the configuration's own L1D
}

TEST_CASE("the preferred carve-out rounds up to a capacity and may cost occupancy", "[config][carveout]") {
  const GpuConfig v100 = named("v100");
  // The guide's example: 50 % of 96 KiB is 48 KiB, "rounded up to 64 KB".
  CHECK(chooseCarveout(v100, kernelUsing(0), 50).shared_kb == 64);
  CHECK(chooseCarveout(v100, kernelUsing(0), 100).shared_kb == 96);  // cudaSharedmemCarveoutMaxShared
  CHECK(chooseCarveout(v100, kernelUsing(0), 0).shared_kb == 0);      // cudaSharedmemCarveoutMaxL1
  CHECK(chooseCarveout(v100, kernelUsing(0), 1).shared_kb == 8);      // 0.96 KiB
  CHECK(chooseCarveout(v100, kernelUsing(0), 9).shared_kb == 16);     // 8.64 KiB
  // A kernel of 2 blocks of 40 KiB preferring the most L1: one block fits
  // in 64 KiB, and the driver keeps that much ("if required to execute the
  // function"), at one block per SM instead of two.
  const Carveout co = chooseCarveout(v100, kernelUsing(40 * 1024), 0);
  CHECK(co.shared_kb == 64);
  CHECK(computeOccupancy(withCarveout(v100, co), kernelUsing(40 * 1024)).blocks == 1);
  CHECK(computeOccupancy(v100, kernelUsing(40 * 1024)).blocks == 2);
}

TEST_CASE("Turing and Hopper choose from their own capacities", "[config][carveout]") {
  GpuConfig turing = named("v100");
  turing.gpu.compute_capability = 75;
  turing.l1d.size_kb = 32;  // 32 + 64: Turing's 96 KB unified data cache
  turing.shared.size_kb = 64;
  turing.shared.max_per_block_kb = 64;
  turing.shared.carveout_kb = {32, 64};
  REQUIRE(violation(turing).empty());
  CHECK(chooseCarveout(turing, kernelUsing(0)).shared_kb == 32);  // Turing has no smaller one
  CHECK(chooseCarveout(turing, kernelUsing(0)).l1d_kb == 64);
  CHECK(chooseCarveout(turing, kernelUsing(3 * 1024)).shared_kb == 64);  // 16 x 3 KiB = 48 KiB

  GpuConfig hopper = named("v100");
  hopper.gpu.compute_capability = 90;
  hopper.l1d.size_kb = 28;  // 28 + 228 = 256 KB
  hopper.l1d.assoc = 56;  // 4 sets
  hopper.shared.size_kb = 228;
  hopper.shared.max_per_block_kb = 227;
  hopper.shared.carveout_kb = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};
  REQUIRE(violation(hopper).empty());
  CHECK(chooseCarveout(hopper, kernelUsing(0)).l1d_kb == 256);
  CHECK(chooseCarveout(hopper, kernelUsing(0)).l1d_assoc == 512);
  CHECK(chooseCarveout(hopper, kernelUsing(5 * 1024)).shared_kb == 100);   // 16 x 5 KiB = 80 KiB
  CHECK(chooseCarveout(hopper, kernelUsing(0), 50).shared_kb == 132);      // 114 KiB, rounded up
}

TEST_CASE("separate arrays have no carve-out", "[config][carveout]") {
  for (const char* name : {"maxwell", "titanx"}) {
    const GpuConfig c = named(name);
    INFO(name);
    for (uint32_t shared : {0u, 1024u, 16u * 1024}) {
      const Carveout co = chooseCarveout(c, kernelUsing(shared), 0);
      CHECK_FALSE(co.chosen);
      CHECK(co.shared_kb == c.shared.size_kb);
      CHECK(co.l1d_kb == c.l1d.size_kb);
      CHECK(co.l1d_assoc == c.l1d.assoc);
    }
  }
  // TITAN V pins Table 1's 96 KB L1D: one capacity, whatever the kernel.
  const GpuConfig titanv = named("titanv");
  CHECK(chooseCarveout(titanv, kernelUsing(0)).l1d_kb == 96);
  CHECK(chooseCarveout(titanv, kernelUsing(0), 0).shared_kb == 32);
}

TEST_CASE("a carve-out the architecture does not offer is refused naming the keys", "[config][carveout]") {
  const GpuConfig v100 = named("v100");
  struct Case {
    std::function<void(GpuConfig&)> change;
    const char* keys;
    const char* reason;
  };
  const Case cases[] = {
      {[](GpuConfig& c) { c.shared.carveout_kb = {0, 8, 16, 48, 64, 96}; }, "'shared.carveout_kb' and 'gpu.compute_capability'",
       "48 KiB is not a shared-memory capacity compute capability 7.0 offers (0, 8, 16, 32, 64, 96 KiB"},
      {[](GpuConfig& c) { c.shared.size_kb = 160; c.shared.carveout_kb = {0, 160}; },
       "'shared.carveout_kb' and 'gpu.compute_capability'", "160 KiB"},
      {[](GpuConfig& c) { c.gpu.compute_capability = 52; }, "'l1d.unified' and 'gpu.compute_capability'",
       "compute capability 5.2 has shared memory apart from the L1 cache"},
      {[](GpuConfig& c) { c.shared.carveout_kb = {0, 8, 64}; }, "'shared.carveout_kb' and 'shared.size_kb'",
       "the largest carve-out, 64 KiB, is not the SM's shared memory of 96 KiB"},
      {[](GpuConfig& c) { c.shared.carveout_kb = {0, 32, 16, 96}; }, "'shared.carveout_kb'", "ascending"},
      {[](GpuConfig& c) { c.shared.carveout_kb = {}; }, "'shared.carveout_kb' and 'shared.size_kb'",
       "no shared-memory capacity"},
      {[](GpuConfig& c) { c.l1d.unified = false; }, "'shared.carveout_kb' and 'l1d.unified'",
       "without a unified array"},
  };
  for (const Case& k : cases) {
    GpuConfig c = v100;
    k.change(c);
    const std::string m = violation(c);
    INFO(m);
    CHECK_THAT(m, Contains(k.keys) && Contains(k.reason));
  }
}

TEST_CASE("a larger L1D grows the array, and a carve-out's part of a way rounds down", "[config][carveout]") {
  GpuConfig v100 = named("v100");
  v100.l1d.size_kb = 64;  // a 160 KiB array: 8 sets
  REQUIRE(violation(v100).empty());
  CHECK(chooseCarveout(v100, kernelUsing(0)).l1d_kb == 160);
  CHECK(chooseCarveout(v100, kernelUsing(0)).l1d_assoc == 160);
  CHECK(chooseCarveout(v100, kernelUsing(40 * 1024)).l1d_kb == 64);
  // CARS' 10 MB L1D (experiments/main.yaml): 2048 sets of 40 ways; the
  // 96 KiB a kernel without shared memory leaves are less than a way.
  GpuConfig big = named("v100");
  big.l1d.size_kb = 10240;
  big.l1d.assoc = 40;
  REQUIRE(violation(big).empty());
  for (uint32_t shared : {0u, 4096u, 40u * 1024}) {
    const Carveout co = chooseCarveout(big, kernelUsing(shared));
    CHECK(co.l1d_kb == 10240);
    CHECK(co.l1d_assoc == 40);
  }
  // Without an L1D (l1d.size_kb 0) there is none at any carve-out.
  GpuConfig none = named("v100");
  none.l1d.size_kb = 0;
  REQUIRE(violation(none).empty());
  CHECK(chooseCarveout(none, kernelUsing(0)).l1d_kb == 0);
  CHECK(chooseCarveout(none, kernelUsing(0)).shared_kb == 0);
}

TEST_CASE("carve-out lists read from YAML and --set, and are refused when malformed", "[config][carveout]") {
  GpuConfig c = named("v100");
  applyOverride(c, "shared.carveout_kb=[0, 32, 96]");
  CHECK(c.shared.carveout_kb == std::vector<uint32_t>{0, 32, 96});
  CHECK(toYaml(c).find("carveout_kb: [0, 32, 96]") != std::string::npos);
  CHECK(toJson(c)["shared"]["carveout_kb"] == nlohmann::json::array({0, 32, 96}));
  auto refused = [&](const std::string& set) {
    try {
      GpuConfig d = named("v100");
      applyOverride(d, set);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK_THAT(refused("shared.carveout_kb=96"), Contains("key 'shared.carveout_kb': expected a list of integers"));
  CHECK_THAT(refused("shared.carveout_kb=[0, x]"), Contains("item 2 of the list"));
  CHECK_THAT(refused("shared.carveout_kb=[0, 2000]"), Contains("item 2 of the list"));
}
