// Instruction-fetch microbenchmark (see ubench_icache.cu): one warp runs 96 or
// 768 straight-line adds twice. The check repeats the adds on the host and
// compares every lane's eight registers exactly, and requires positive
// %clock64 deltas. Measured (stats.json: workloads.ubench_icache.measured):
// each kernel's first (cold) and second (warm) pass in cycles, and their
// cycles per add.
#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr uint32_t kWarp = 32;

bool runKernel(rt::Device& dev, int body, Check& report, Check& fail) {
  const std::string kernel = fmt::format("icache_{}", body);
  Rng rng(131 + body);
  std::vector<uint32_t> in(8 * kWarp);
  for (auto& v : in) v = rng.next32();
  DeviceBuffer d_in(dev, in), d_out(dev, in.size() * 4), d_clk(dev, 2 * 8);
  d_clk.zero();
  dev.launch(kernel, {1}, {kWarp}, rt::KernelArgs().ptr(d_in.addr()).ptr(d_out.addr()).ptr(d_clk.addr()));
  const auto got = d_out.download<uint32_t>(in.size());
  for (uint32_t l = 0; l < kWarp; ++l) {
    uint32_t r[8];
    for (int k = 0; k < 8; ++k) r[k] = in[8 * l + k];
    for (int pass = 0; pass < 2; ++pass)
      for (int i = 0; i < body; ++i) r[i % 8] += r[(i + 1) % 8];
    for (int k = 0; k < 8; ++k) {
      if (got[8 * l + k] != r[k]) {
        fail.detail = fmt::format("{}: lane {} register {} is {}, expected {}", kernel, l, k, got[8 * l + k], r[k]);
        return false;
      }
    }
  }
  const auto clk = d_clk.download<uint64_t>(2);
  if (clk[0] == 0 || clk[1] == 0) {
    fail.detail = fmt::format("{}: clock deltas {} and {}, expected positive", kernel, clk[0], clk[1]);
    return false;
  }
  report.detail += fmt::format("; {} adds: first pass {} clocks, second {}", body, clk[0], clk[1]);
  const char* unit = dev.options().timing ? "cycle" : "count";
  for (int pass = 0; pass < 2; ++pass) {
    const char* which = pass == 0 ? "first (cold)" : "second (warm)";
    report.measured.push_back({fmt::format("{}_{}", pass == 0 ? "cold" : "warm", body), unit,
                               fmt::format("%clock64 delta of the {} pass over {} straight-line adds", which, body),
                               static_cast<double>(clk[pass])});
    report.measured.push_back({fmt::format("{}_{}_per_add", pass == 0 ? "cold" : "warm", body), unit,
                               "the same per add",
                               static_cast<double>(clk[pass]) / body});
  }
  return true;
}

Check runIcache(rt::Device& dev, Size) {
  Check report;
  report.detail = "one warp, straight-line adds run twice, every lane's registers exact; %clock64 deltas (functional "
                  "model: warp instructions, not cycles)";
  Check fail;
  if (!runKernel(dev, 96, report, fail) || !runKernel(dev, 768, report, fail)) return fail;
  report.passed = true;
  return report;
}

}  // namespace

RFSIM_WORKLOAD("ubench_icache",
               "microbenchmark: straight-line code run twice by one warp, 96 and 768 adds (the I-caches' cold start "
               "and a code block larger than Volta's L0), timed with %clock64",
               "workloads/ubench_icache/ubench_icache.ptx", {"ubench"}, runIcache);

}  // namespace rfsim::workloads
