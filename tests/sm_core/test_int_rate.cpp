// Integer add throughput with and without pipeline.int_add_on_fma: a kernel
// of independent 32-bit integer adds from many warps, measured as warp
// instructions per cycle per SM in steady state (the difference of two
// kernel lengths cancels start and end), on the h100 configuration, whose
// sub-cores have 16 INT32 lanes and a 32-lane FP32 unit each.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "config/config_io.h"
#include "sm_test_util.h"

using namespace rfsim;
using namespace rfsim::test;

namespace {

config::GpuConfig h100(bool on_fma) {
  config::GpuConfig cfg = config::loadConfig(std::string(RFSIM_SOURCE_DIR) + "/configs/h100.yaml");
  cfg.pipeline.l1i_miss_latency = 1;  // fetch out of the way: the issue and execution rate alone
  cfg.sm.dependency = config::Dependency::Scoreboard;  // the hand-written kernel has no control codes
  cfg.pipeline.int_add_on_fma = on_fma;
  return cfg;
}

// `adds` independent add.s32 per thread, each writing its own register from
// two that never change, so nothing waits for a result.
Timed runAdds(const config::GpuConfig& cfg, unsigned adds, uint32_t threads) {
  std::string body = "  mov.u32 %R2, 3;\n  mov.u32 %R3, 5;\n";
  for (unsigned i = 0; i < adds; ++i) body += fmt::format("  add.s32 %R{}, %R2, %R3;\n", 20 + i % 40);
  body += "  st.global.u32 [%RD8], %R20;\n";
  const std::string text =
      ".version 9.0\n.target sm_75\n.address_size 64\n.visible .entry k(.param .u64 out)\n{\n"
      "  .reg .b32 %R<64>;\n  .reg .b64 %RD<16>;\n  ld.param.u64 %RD8, [out];\n" + body + "  ret;\n}\n";
  Loaded ld(test::parseMachine(text));
  const uint64_t out = buffer(ld.mem, std::vector<uint8_t>(16, 0));
  Launch l{"k", {1, 1, 1}, {threads, 1, 1}, 0, {arg(out)}, {{out, 4}}};
  return runTimed(ld, l, cfg, 64);
}

struct Rate {
  double per_cycle;
  uint64_t on_fma;  // sm.exec.int_on_fma of the longer kernel
};

Rate intRate(const config::GpuConfig& cfg, uint32_t warps) {
  const unsigned n1 = 128, n2 = 384;
  const Timed a = runAdds(cfg, n1, 32 * warps), b = runAdds(cfg, n2, 32 * warps);
  return {double(warps) * (n2 - n1) / double(b.r.cycles - a.r.cycles),
          b.stats.at("root.gpu.sm.exec.int_on_fma").get<uint64_t>()};
}

}  // namespace

TEST_CASE("h100: integer adds issue twice as fast when the FP32 unit takes them too", "[sm][int_rate]") {
  // Without: 4 sub-cores x 16 INT32 lanes, a warp instruction every 2 cycles each.
  const Rate off = intRate(h100(false), 32);
  INFO("INT unit alone: " << off.per_cycle << " warp adds per cycle per SM");
  CHECK(off.per_cycle == Approx(2.0).margin(0.15));
  CHECK(off.on_fma == 0);
  // With: the FP32 unit takes one every 2 cycles too, as IMAD.IADD on the
  // FMA pipe (ubench_icache on an H200: one add a cycle per warp).
  const Rate on = intRate(h100(true), 32);
  INFO("INT and FP32 units: " << on.per_cycle << " warp adds per cycle per SM");
  CHECK(on.per_cycle == Approx(4.0).margin(0.3));
  CHECK(on.on_fma > 0);
}
