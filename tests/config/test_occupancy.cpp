// Occupancy against hand-computed answers, worked the way NVIDIA's CUDA
// occupancy calculator works them (registers per warp rounded up to 256,
// shared memory per block to 256 bytes).
#include <catch2/catch.hpp>

#include "config/occupancy.h"
#include "common/error.h"
#include "config/config_io.h"

using namespace rfsim;
using namespace rfsim::config;

namespace {
config::GpuConfig named(const std::string& name) {
  return config::loadConfig(std::string(RFSIM_SOURCE_DIR) + "/configs/" + name + ".yaml");
}
}  // namespace

TEST_CASE("V100: registers and warps both allow 8 blocks of 256 threads at 32 registers", "[backend][occupancy]") {
  const Occupancy o = computeOccupancy(named("v100"), {256, 32, 0});
  CHECK(o.warps_per_block == 8);
  CHECK(o.regs_per_warp == 1024);
  CHECK(o.blocks_by_registers == 8);  // 65536 / 1024 = 64 warps
  CHECK(o.blocks_by_warps == 8);
  CHECK(o.blocks_by_slots == 32);
  CHECK(o.blocks == 8);
  CHECK(o.warps == 64);
  CHECK(o.occupancy == Approx(1.0));
  CHECK(o.limiters == std::vector<Limiter>{Limiter::Registers, Limiter::Warps});
}

TEST_CASE("V100: the register cliff at 64 registers halves occupancy", "[backend][occupancy]") {
  const Occupancy o = computeOccupancy(named("v100"), {256, 64, 0});
  CHECK(o.regs_per_warp == 2048);
  CHECK(o.blocks == 4);
  CHECK(o.occupancy == Approx(0.5));
  CHECK(o.limiters == std::vector<Limiter>{Limiter::Registers});
  CHECK(o.describe() == "4 blocks x 8 warps = 32 warps per SM (50 %), limited by registers");
}

TEST_CASE("V100: 37 registers round up to 1280 per warp", "[backend][occupancy]") {
  const Occupancy o = computeOccupancy(named("v100"), {128, 37, 0});
  CHECK(o.regs_per_warp == 1280);     // 37 x 32 = 1184 -> next multiple of 256
  CHECK(o.blocks_by_registers == 12);  // 65536 / 1280 = 51 warps -> 12 blocks of 4 warps
  CHECK(o.blocks_by_warps == 16);
  CHECK(o.blocks == 12);
  CHECK(o.warps == 48);
  CHECK(o.occupancy == Approx(0.75));
}

TEST_CASE("V100: shared memory rounds up to 256 bytes and limits", "[backend][occupancy]") {
  const Occupancy o = computeOccupancy(named("v100"), {256, 16, 20000});
  CHECK(o.shared_alloc_per_block == 20224);  // 79 x 256
  CHECK(o.blocks_by_shared == 4);            // 98304 / 20224
  CHECK(o.blocks_by_registers == 16);
  CHECK(o.blocks == 4);
  CHECK(o.limiters == std::vector<Limiter>{Limiter::SharedMemory});
}

TEST_CASE("V100: single-warp blocks run out of block slots", "[backend][occupancy]") {
  const Occupancy o = computeOccupancy(named("v100"), {32, 8, 0});
  CHECK(o.blocks_by_registers == 256);
  CHECK(o.blocks_by_warps == 64);
  CHECK(o.blocks == 32);
  CHECK(o.warps == 32);
  CHECK(o.limiters == std::vector<Limiter>{Limiter::Blocks});
}

TEST_CASE("V100: 255 registers per thread leave 8 warps", "[backend][occupancy]") {
  const Occupancy o = computeOccupancy(named("v100"), {128, 255, 0});
  CHECK(o.regs_per_warp == 8192);  // 8160 -> 8192
  CHECK(o.blocks == 2);
  CHECK(o.warps == 8);
  CHECK(o.occupancy == Approx(0.125));
  // 256 threads at 255 registers fill the register file exactly: one block.
  CHECK(computeOccupancy(named("v100"), {256, 255, 0}).blocks == 1);
}

TEST_CASE("Maxwell: 1024-thread blocks are limited by warps", "[backend][occupancy]") {
  const Occupancy o = computeOccupancy(named("maxwell"), {1024, 16, 0});
  CHECK(o.warps_per_block == 32);
  CHECK(o.blocks_by_registers == 4);
  CHECK(o.blocks_by_warps == 2);
  CHECK(o.blocks == 2);
  CHECK(o.occupancy == Approx(1.0));
  CHECK(o.limiters == std::vector<Limiter>{Limiter::Warps});
}

TEST_CASE("TITAN V: its 32 KiB of shared memory holds two 12 KiB blocks", "[backend][occupancy]") {
  const Occupancy o = computeOccupancy(named("titanv"), {256, 24, 12 * 1024});
  CHECK(o.blocks_by_shared == 2);
  CHECK(o.blocks == 2);
  CHECK(o.warps == 16);
  CHECK(o.occupancy == Approx(0.25));
}

TEST_CASE("kernels that cannot launch are errors naming the kernel and the resource", "[backend][occupancy]") {
  const auto v100 = named("v100");
  CHECK_THROWS_WITH(computeOccupancy(v100, {1025, 16, 0}, "k1"), Catch::Contains("k1: 1025 threads per block"));
  CHECK_THROWS_WITH(computeOccupancy(v100, {128, 256, 0}, "k2"), Catch::Contains("k2: 256 registers per thread"));
  CHECK_THROWS_WITH(computeOccupancy(v100, {512, 255, 0}, "k3"),
                    Catch::Contains("k3: one block needs 131072 registers"));
  CHECK_THROWS_WITH(computeOccupancy(named("titanv"), {256, 16, 40 * 1024}, "k4"),
                    Catch::Contains("k4: one block needs 40960 bytes of shared memory"));
}
