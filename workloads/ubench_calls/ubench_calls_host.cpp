// Call and return cost (see ubench_calls.cu): one warp, a chain of dependent
// calls to a function that adds, and the same chain of adds inline. The
// check compares every lane's result exactly (x + calls x b, modulo 2^32) and
// requires positive clock deltas, equal in all lanes. Measured
// (stats.json: workloads.ubench_calls.measured): cycles per call, per inline
// add, and their difference, what a call and its return add.
#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr int kUnroll = 8;  // UNROLL in ubench_calls.cu
constexpr uint32_t kWarp = 32;

Check runCalls(rt::Device& dev, Size size) {
  const int iters = size == Size::Small ? 16 : 256;
  Rng rng(97);
  std::vector<uint32_t> in(2 * kWarp);
  for (auto& v : in) v = rng.next32();
  DeviceBuffer d_in(dev, in), d_out(dev, kWarp * 4), d_clk(dev, kWarp * 8);
  const uint64_t ops = static_cast<uint64_t>(iters) * kUnroll;
  double per[2] = {0, 0};
  const char* kernels[2] = {"call_chain", "add_chain"};
  std::string detail;
  for (int k = 0; k < 2; ++k) {
    dev.launch(kernels[k], {1}, {kWarp}, rt::KernelArgs().ptr(d_in.addr()).ptr(d_out.addr()).ptr(d_clk.addr()).i32(iters));
    const auto got = d_out.download<uint32_t>(kWarp);
    for (uint32_t l = 0; l < kWarp; ++l) {
      const uint32_t want = in[l] + static_cast<uint32_t>(ops) * in[kWarp + l];
      if (got[l] != want)
        return Check{false, fmt::format("{}: lane {} is {}, expected {}", kernels[k], l, got[l], want)};
    }
    const auto clk = d_clk.download<uint64_t>(kWarp);
    for (uint32_t l = 0; l < kWarp; ++l)
      if (clk[l] == 0 || clk[l] != clk[0])
        return Check{false, fmt::format("{}: lane {} clock delta {}, expected positive and equal in all lanes",
                                        kernels[k], l, clk[l])};
    per[k] = static_cast<double>(clk[0]) / static_cast<double>(ops);
    detail += fmt::format("; {}: {} ops, {} clocks, {:.2f} per op", kernels[k], ops, clk[0], per[k]);
  }
  const char* unit = dev.options().timing ? "cycle" : "count";
  Check c;
  c.passed = true;
  c.detail = fmt::format("call + return {:.2f}, inline add {:.2f}, the call's own cost {:.2f} per op{}; every lane exact",
                         per[0], per[1], per[0] - per[1], dev.options().timing ? "" : " (functional model: warp instructions)") +
             detail;
  c.measured = {{"per_call", unit, "%clock64 delta per dependent call (the callee one add)", per[0]},
                {"per_add", unit, "%clock64 delta per dependent inline add", per[1]},
                {"call_overhead", unit, "per call less per add: what a call and its return add", per[0] - per[1]}};
  return c;
}

}  // namespace

RFSIM_WORKLOAD("ubench_calls",
               "microbenchmark: a chain of dependent calls to a one-add function against the same adds inline "
               "(what a call and return cost), timed with %clock64",
               "workloads/ubench_calls/ubench_calls.ptx", {"ubench"}, runCalls);

}  // namespace rfsim::workloads
