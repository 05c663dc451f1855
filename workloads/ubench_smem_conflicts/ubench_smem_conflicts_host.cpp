// Shared-memory bank-conflict microbenchmark (see ubench_smem_conflicts.cu).
// One launch per stride; the check verifies the words the chases end on (each
// word points to itself, so every chain ends where it started) and that the
// %clock64 deltas are positive (in the detail, and per load in stats.json's
// workloads.ubench_smem_conflicts.measured.dependent_s<stride> and
// independent_s<stride>). Under the functional model the deltas count
// warp instructions, so they are the same for every stride; under the SM
// timing model they will count cycles and grow with the conflict degree.
#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr int kUnroll = 64;  // UNROLL in the kernel
constexpr uint32_t kWords = 1024, kWarp = 32;

Check runSmemConflicts(rt::Device& dev, Size size) {
  const int iters = size == Size::Small ? 16 : 512;  // 1024 or 32768 loads per timing
  const uint64_t loads = static_cast<uint64_t>(iters) * kUnroll;
  // stride (words) -> conflict degree with 32 banks of 4 bytes.
  const uint32_t strides[] = {0, 1, 2, 4, 8, 16, 32};
  std::string detail = fmt::format(
      "{} loads per timing, one warp; %clock64 deltas (functional model: warp instructions, not cycles), "
      "dependent / independent(8 chains)",
      loads);
  std::vector<Measured> measured;
  DeviceBuffer d_out(dev, 9 * kWarp * 4), d_clk(dev, 2 * kWarp * 8);
  for (uint32_t stride : strides) {
    dev.launch("smem_conflict", {1}, {kWarp},
               rt::KernelArgs().ptr(d_out.addr()).ptr(d_clk.addr()).i32(iters).u32(stride));
    std::vector<uint32_t> ref(9 * kWarp);
    for (uint32_t l = 0; l < kWarp; ++l) {
      ref[l] = (l * stride) % kWords;
      for (uint32_t j = 0; j < 8; ++j) ref[32 * (1 + j) + l] = (l * stride + 32 * j) % kWords;
    }
    Check c = compareExact(d_out.download<uint32_t>(9 * kWarp), ref,
                           fmt::format("stride {}: chase end word indices", stride));
    if (!c.passed) return c;
    const auto clk = d_clk.download<uint64_t>(2 * kWarp);
    for (uint32_t i = 0; i < 2 * kWarp; ++i) {
      if (clk[i] == 0 || clk[i] != clk[i < kWarp ? 0 : kWarp]) {
        c.passed = false;
        c.detail = fmt::format("stride {}: clock delta {} of lane {} ({}), expected positive and equal in all lanes",
                               stride, clk[i], i % kWarp, i < kWarp ? "dependent" : "independent");
        return c;
      }
    }
    // Distinct banks the warp touches: 32 / degree.
    uint32_t banks = 0;
    for (uint32_t b = 0; b < 32; ++b) {
      for (uint32_t l = 0; l < kWarp; ++l) {
        if ((l * stride) % kWords % 32 == b) {
          ++banks;
          break;
        }
      }
    }
    const uint32_t ways = stride == 0 ? 1 : 32 / banks;
    detail += fmt::format("; stride {} ({}{}): {} / {} clocks, {:.2f} / {:.2f} per load", stride, ways,
                          stride == 0 ? "-way, broadcast" : "-way", clk[0], clk[kWarp],
                          static_cast<double>(clk[0]) / loads, static_cast<double>(clk[kWarp]) / loads);
    for (const bool dependent : {true, false}) {
      measured.push_back({fmt::format("{}_s{}", dependent ? "dependent" : "independent", stride), "cycle",
                          fmt::format("%clock64 delta per load at stride {} ({}-way), {} (cycles under the timing "
                                      "model, warp instructions under the functional model)",
                                      stride, ways, dependent ? "one dependent chain" : "8 independent chains"),
                          static_cast<double>(clk[dependent ? 0 : kWarp]) / loads});
    }
  }
  Check c;
  c.passed = true;
  c.detail = detail;
  c.measured = measured;
  for (Measured& m : c.measured) m.unit = dev.options().timing ? "cycle" : "count";
  return c;
}

}  // namespace

RFSIM_WORKLOAD("ubench_smem_conflicts",
               "microbenchmark: shared-memory loads with stride 0..32 words (broadcast, 1- to 32-way bank "
               "conflicts), dependent and independent, timed with %clock64",
               "workloads/ubench_smem_conflicts/ubench_smem_conflicts.ptx", {"ubench", "shared"}, runSmemConflicts);

}  // namespace rfsim::workloads
