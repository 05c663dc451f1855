// FP32 and integer-add throughput of the named configurations: a kernel of
// independent FMAs (or adds) from many warps, measured as warp instructions
// per cycle per SM in steady state (the difference of two kernel lengths
// cancels start and end).
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "config/config_io.h"
#include "sm_test_util.h"

using namespace rfsim;
using namespace rfsim::test;

namespace {

config::GpuConfig named(const std::string& name) {
  config::GpuConfig cfg = config::loadConfig(std::string(RFSIM_SOURCE_DIR) + "/configs/" + name + ".yaml");
  cfg.pipeline.l1i_miss_latency = 1;  // fetch out of the way: the issue and execution rate alone
  // The hand-written kernel has no control codes; its FMAs are independent,
  // so the scoreboard waits for nothing either.
  cfg.sm.dependency = config::Dependency::Scoreboard;
  return cfg;
}

// The operations the kernels repeat: each writes its own register from
// ones that never change (R2, R3, R4: three banks on every configuration's
// bank map), so nothing waits for a result.
struct Op {
  const char* setup;  // sets the sources
  const char* op;     // one operation, {} its destination
};
constexpr Op kFma{"  mov.f32 %R2, 0f3F800000;\n  mov.f32 %R3, 0f40000000;\n  mov.f32 %R4, 0f40400000;\n",
                  "  fma.rn.f32 %R{}, %R2, %R3, %R4;\n"};
constexpr Op kIntAdd{"  mov.u32 %R2, 3;\n  mov.u32 %R3, 5;\n", "  add.s32 %R{}, %R2, %R3;\n"};

// `n` independent `o.op` per thread.
Timed runOps(const config::GpuConfig& cfg, const Op& o, unsigned n, uint32_t threads) {
  std::string body = o.setup;
  // Destinations R20..R59, clear of the output address in RD8 (R16:R17).
  for (unsigned i = 0; i < n; ++i) body += fmt::format(fmt::runtime(o.op), 20 + i % 40);
  body += "  st.global.b32 [%RD8], %R20;\n";
  return runMicro(body, cfg, threads);
}

// Warp instructions per cycle of one SM with `warps` warps, and the longer
// kernel's run.
double rate(const config::GpuConfig& cfg, const Op& o, uint32_t warps, Timed* longer = nullptr) {
  const unsigned n1 = 128, n2 = 384;
  const Timed a = runOps(cfg, o, n1, 32 * warps), b = runOps(cfg, o, n2, 32 * warps);
  if (longer) *longer = b;
  return double(warps) * (n2 - n1) / double(b.r.cycles - a.r.cycles);
}

double fp32Rate(const config::GpuConfig& cfg, uint32_t warps) { return rate(cfg, kFma, warps); }

}  // namespace

// GTX 980 whitepaper (GM204; GM200 has the same SMM): the SMM is four
// processing blocks of 32 CUDA cores, each with its own warp scheduler and
// dispatch, so 4 FP32 warp instructions per cycle per SM.
TEST_CASE("titanx: GM200 issues 4 FP32 warp instructions per cycle per SM", "[sm][fp32_rate]") {
  const double rate = fp32Rate(named("titanx"), 32);
  INFO("titanx: " << rate << " FP32 warp instructions per cycle per SM");
  CHECK(rate == Approx(4.0).margin(0.15));
}

// V100 as configured: 4 sub-cores, each with one SP pipeline of 16 lanes
// (pipeline.fp32_fma_ii 2) and its own 2 banks: 2 FMAs per cycle per SM.
// Each warp's FMA reads R2, R3 and R4, 2 of them in one of its sub-core's
// banks, but the operand reuse cache serves the repeated operands, so the
// banks do not limit the rate (with 16 banks shared by all warps and no
// reuse, the former configuration, one FMA's operands per cycle: 1).
TEST_CASE("v100: FP32 warp instructions issue at 2 per cycle per SM (a 16-lane unit per sub-core)", "[sm][fp32_rate]") {
  const double rate = fp32Rate(named("v100"), 32);
  INFO("v100: " << rate << " FP32 warp instructions per cycle per SM");
  CHECK(rate == Approx(2.0).margin(0.05));
  config::GpuConfig shared = named("v100");
  shared.sm.sub_cores = 1;
  shared.regfile.num_banks = 16;
  shared.regfile.operand_reuse = false;
  CHECK(fp32Rate(shared, 32) == Approx(1.0).margin(0.05));
}

// h100: 4 sub-cores of 16 INT32 lanes and a 32-lane FP32 unit each. Alone,
// the INT units take a warp add every 2 cycles each: 2 per cycle per SM.
// With pipeline.int_add_on_fma the FP32 unit takes one every 2 cycles too,
// as IMAD.IADD on the FMA pipe (ubench_icache on an H200: one add a cycle
// per warp): 4.
TEST_CASE("h100: integer adds issue twice as fast when the FP32 unit takes them too", "[sm][int_rate]") {
  config::GpuConfig off = named("h100"), on = named("h100");
  off.pipeline.int_add_on_fma = false;
  on.pipeline.int_add_on_fma = true;
  Timed b;
  const double alone = rate(off, kIntAdd, 32, &b);
  INFO("INT units alone: " << alone << " warp adds per cycle per SM");
  CHECK(alone == Approx(2.0).margin(0.15));
  CHECK(b.stats.at("root.gpu.sm.exec.int_on_fma").get<uint64_t>() == 0);
  const double both = rate(on, kIntAdd, 32, &b);
  INFO("INT and FP32 units: " << both << " warp adds per cycle per SM");
  CHECK(both == Approx(4.0).margin(0.3));
  CHECK(b.stats.at("root.gpu.sm.exec.int_on_fma").get<uint64_t>() > 0);
}
