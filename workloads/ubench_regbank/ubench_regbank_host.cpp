// Register-bank microbenchmark (see ubench_regbank.cu). The check verifies
// each lane's sum of the eight chains' final values (bit-exact: the host
// repeats the same fma sequence and the same summation order) and that the
// %clock64 deltas are positive; the cycles per FMA are in the detail and in
// stats.json's workloads.ubench_regbank.measured.per_fma_<variant>. Which
// banks the distinct operands fall into is decided by the back end's register
// allocation, not by the source; `rfsim backend --workload ubench_regbank`
// shows the allocation.
#include <cmath>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr int kUnroll = 16;  // UNROLL in the kernel: passes of 8 FMAs per loop iteration
constexpr uint32_t kWarp = 32;

template <typename T>
bool runVariant(rt::Device& dev, const std::string& kernel, int srcs, int iters, const std::vector<T>& in,
                Check& report, Check& fail) {
  DeviceBuffer d_in(dev, in), d_out(dev, kWarp * sizeof(T)), d_clk(dev, kWarp * 8);
  dev.launch(kernel, {1}, {kWarp}, rt::KernelArgs().ptr(d_in.addr()).ptr(d_out.addr()).ptr(d_clk.addr()).i32(iters));
  std::vector<T> ref(kWarp);
  const int steps = (iters + 1) * kUnroll;  // FMAs per chain: a warm-up pass, then `iters` timed ones
  for (uint32_t l = 0; l < kWarp; ++l) {
    T sum = 0;
    for (int j = 0; j < 8; ++j) {
      const T a = in[(3 * j) * 32 + l], b = in[(3 * j + 1) * 32 + l], c = in[(3 * j + 2) * 32 + l];
      T d = srcs == 1 ? T(-0.5) * std::fabs(c) : c;
      for (int k = 0; k < steps; ++k) d = srcs == 3 ? std::fma(a, b, d) : srcs == 2 ? std::fma(a, a, d) : std::fma(d, d, d);
      sum += d;
    }
    ref[l] = sum;
  }
  const auto got = d_out.download<T>(kWarp);
  for (uint32_t l = 0; l < kWarp; ++l) {
    if (!(got[l] == ref[l])) {
      fail.detail = fmt::format("{}: lane {} sum is {:.17g}, expected exactly {:.17g}", kernel, l, got[l], ref[l]);
      return false;
    }
  }
  const auto clk = d_clk.download<uint64_t>(kWarp);
  for (uint32_t l = 0; l < kWarp; ++l) {
    if (clk[l] == 0 || clk[l] != clk[0]) {
      fail.detail = fmt::format("{}: lane {} clock delta {}, expected positive and equal in all lanes", kernel, l,
                                clk[l]);
      return false;
    }
  }
  const uint64_t ops = static_cast<uint64_t>(iters) * kUnroll * 8;
  const double per_fma = static_cast<double>(clk[0]) / ops;
  report.detail += fmt::format("; {} ({} distinct source registers): {} FMAs, {} clocks, {:.2f} per FMA", kernel, srcs,
                               ops, clk[0], per_fma);
  report.measured.push_back({"per_fma_" + kernel.substr(kernel.find('_') + 1), "cycle",
                             fmt::format("%clock64 delta per FMA of {} ({} distinct source registers; cycles under the "
                                         "timing model, warp instructions under the functional model)",
                                         kernel, srcs),
                             per_fma});
  return true;
}

Check runRegbank(rt::Device& dev, Size size) {
  const int iters = size == Size::Small ? 16 : 512;  // 2048 or 65536 FMAs per variant
  Rng rng(91);
  std::vector<float> in_f(24 * kWarp);
  std::vector<double> in_d(24 * kWarp);
  for (auto& v : in_f) v = rng.uniform(-2.0f, 2.0f);
  for (auto& v : in_d) v = static_cast<double>(rng.uniform(-2.0f, 2.0f)) + static_cast<double>(rng.next32()) * 0x1p-55;
  Check report;
  report.detail =
      "8 independent FMA accumulator chains, one warp, final values summed per lane, exact; %clock64 deltas (functional model: "
      "warp instructions, not cycles)";
  Check fail;
  const bool ok = runVariant<float>(dev, "regbank_distinct", 3, iters, in_f, report, fail) &&
                  runVariant<float>(dev, "regbank_pair", 2, iters, in_f, report, fail) &&
                  runVariant<float>(dev, "regbank_same", 1, iters, in_f, report, fail) &&
                  runVariant<double>(dev, "regbank_fp64", 3, iters, in_d, report, fail);
  if (!ok) return fail;
  Check c;
  c.passed = true;
  c.detail = report.detail;
  c.measured = report.measured;
  for (Measured& m : c.measured) m.unit = dev.options().timing ? "cycle" : "count";
  return c;
}

}  // namespace

RFSIM_WORKLOAD("ubench_regbank",
               "microbenchmark: 8 FMA chains reading 3, 2 or 1 distinct registers (register-bank conflicts; "
               "run under regfile.num_banks 1 / read_ports_per_bank 4 to isolate them), timed with %clock64",
               "workloads/ubench_regbank/ubench_regbank.ptx", {"ubench"}, runRegbank);

}  // namespace rfsim::workloads
