// Dependent-instruction latency microbenchmarks (see ubench_latency.cu and the
// Microbenchmarks section of docs/workloads.md). The CPU check verifies each
// chain's final value; the %clock64 deltas are only reported (and must be
// positive), in the detail and as stats.json's
// workloads.ubench_latency.measured.per_op_<chain> (int_add, fp32_fma,
// shared_ld_chase, ...): under the functional model %clock64 counts the
// block's warp instructions, under the SM timing model it counts cycles.
#include <cctype>
#include <cmath>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr int kUnroll = 64;  // UNROLL in ubench_latency.cu: operations per loop pass
constexpr uint32_t kWarp = 32;

// The measured name of a chain: its label in lower case, each run of other
// characters one '_' ("fp32 div.rn" -> "fp32_div_rn").
std::string chainKey(const std::string& what) {
  std::string key;
  for (char ch : what) {
    if (std::isalnum(static_cast<unsigned char>(ch)))
      key += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    else if (!key.empty() && key.back() != '_')
      key += '_';
  }
  return key;
}

// The clock deltas of one launch: positive and equal in every lane (one warp);
// appended to report's detail and measured values.
bool clockLine(const std::string& what, const std::vector<uint64_t>& clk, uint64_t ops, Check& report,
               Check& fail) {
  for (uint32_t l = 0; l < kWarp; ++l) {
    if (clk[l] == 0 || clk[l] != clk[0]) {
      fail.detail = fmt::format("{}: lane {} clock delta {} (lane 0: {}), expected positive and equal in all lanes",
                                what, l, clk[l], clk[0]);
      return false;
    }
  }
  const double per_op = static_cast<double>(clk[0]) / static_cast<double>(ops);
  report.detail += fmt::format("; {}: {} ops, {} clocks, {:.2f} per op", what, ops, clk[0], per_op);
  report.measured.push_back({"per_op_" + chainKey(what), "cycle",
                             fmt::format("%clock64 delta per operation of the {} chain (cycles under the timing "
                                         "model, warp instructions under the functional model)",
                                         what),
                             per_op});
  return true;
}

// One chain kernel: in[lane] -> `iters*kUnroll` applications of `step` ->
// out[lane]. `ref` checks the result against the CPU chain.
template <typename T, typename Step, typename Cmp>
bool runChain(rt::Device& dev, const std::string& kernel, const std::string& what, int iters, const std::vector<T>& in,
              T b, T c, Step step, Cmp cmp, Check& report, Check& fail) {
  DeviceBuffer d_in(dev, in), d_out(dev, kWarp * sizeof(T)), d_clk(dev, kWarp * sizeof(uint64_t));
  rt::KernelArgs args;
  args.ptr(d_in.addr()).ptr(d_out.addr()).ptr(d_clk.addr()).i32(iters);
  if constexpr (sizeof(T) == 8) {
    args.f64(b).f64(c);
  } else if constexpr (std::is_same_v<T, float>) {
    args.f32(b).f32(c);
  } else {
    args.u32(b).u32(c);
  }
  dev.launch(kernel, {1}, {kWarp}, args);
  const uint64_t ops = static_cast<uint64_t>(iters) * kUnroll;
  std::vector<T> ref(in);
  for (auto& x : ref) {
    for (uint64_t k = 0; k < ops; ++k) x = step(x, b, c);
  }
  Check c1 = cmp(d_out.download<T>(kWarp), ref, what + " chain results");
  if (!c1.passed) {
    fail = c1;
    return false;
  }
  return clockLine(what, d_clk.download<uint64_t>(kWarp), ops, report, fail);
}

Check exactU32(const std::vector<uint32_t>& got, const std::vector<uint32_t>& ref, const std::string& w) {
  return compareExact(got, ref, w);
}
Check exactF32(const std::vector<float>& got, const std::vector<float>& ref, const std::string& w) {
  return compareFloats(got, std::vector<double>(ref.begin(), ref.end()), 0.0, 0.0, w);
}
Check exactF64(const std::vector<double>& got, const std::vector<double>& ref, const std::string& w) {
  return compareExact(got, ref, w);
}
// The .approx chains: the reference is the model's own semantics (libm in
// double, rounded to float); the tolerance admits another libm's last bits
// compounded over the chain. The rsqrt and ex2/lg2 chains pass with it on an
// H100 too (docs/hardware.md); the sin chain's MUFU error needs sinChainF32.
Check approxF32(const std::vector<float>& got, const std::vector<float>& ref, const std::string& w) {
  return compareFloats(got, std::vector<double>(ref.begin(), ref.end()), 1e-4, 1e-5, w);
}
float approx(double r) { return static_cast<float>(r); }
// The sin chain x <- sin(x) on hardware: MUFU.SIN's absolute error is at most
// 2^-20.5 (PTX ISA, sin.approx.f32), and |d sin(x)/dx| <= 1 carries an
// earlier step's error forward undiminished, so after `steps` steps the
// result is within steps * (2^-20.5 + the reference's float rounding, 2^-24)
// of the reference. An H100 lands at 1e-4 after 2048 steps
// (docs/hardware.md), past approxF32's 1e-4 relative tolerance at x ~ 0.04.
auto sinChainF32(uint64_t steps) {
  return [steps](const std::vector<float>& got, const std::vector<float>& ref, const std::string& w) {
    const double atol = static_cast<double>(steps) * (std::ldexp(std::sqrt(2.0), -21) + std::ldexp(1.0, -24));
    return compareFloats(got, std::vector<double>(ref.begin(), ref.end()), 0.0, atol, w);
  };
}

Check runLatency(rt::Device& dev, Size size) {
  const int iters = size == Size::Small ? 32 : 1024;  // 2048 or 65536 dependent operations per chain
  Rng rng(57);
  std::vector<uint32_t> in_u(kWarp);
  std::vector<float> in_f(kWarp), in_fpos(kWarp);
  std::vector<double> in_d(kWarp);
  for (uint32_t l = 0; l < kWarp; ++l) {
    in_u[l] = rng.next32();
    in_f[l] = rng.uniform(-1.0f, 1.0f);
    in_fpos[l] = rng.uniform(0.5f, 4.0f);
    in_d[l] = static_cast<double>(rng.uniform(-1.0f, 1.0f)) + static_cast<double>(rng.next32()) * 0x1p-56;
  }
  Check report, fail;
  using U = uint32_t;
  // Every step below is one correctly rounded IEEE operation, which the host
  // reproduces bit for bit (std::fma for the fused forms).
  bool ok =
      runChain<U>(dev, "lat_int_add", "int add", iters, in_u, 0x9e3779b9u, 0u,
                  [](U x, U b, U) { return x + b; }, exactU32, report, fail) &&
      runChain<U>(dev, "lat_int_mul", "int mul", iters, in_u, 0x01000193u, 0u,
                  [](U x, U b, U) { return x * b; }, exactU32, report, fail) &&
      runChain<U>(dev, "lat_int_mad", "int mad", iters, in_u, 1664525u, 1013904223u,
                  [](U x, U b, U c) { return x * b + c; }, exactU32, report, fail) &&
      // x / 1: the only divisor that keeps an unsigned chain from reaching 0.
      runChain<U>(dev, "lat_int_div", "int div", iters, in_u, 1u, 0u,
                  [](U x, U b, U) { return x / b; }, exactU32, report, fail) &&
      runChain<float>(dev, "lat_fp32_add", "fp32 add", iters, in_f, 0.375f, 0.0f,
                      [](float x, float b, float) { return x + b; }, exactF32, report, fail) &&
      runChain<float>(dev, "lat_fp32_mul", "fp32 mul", iters, in_f, 1.0000305f, 0.0f,
                      [](float x, float b, float) { return x * b; }, exactF32, report, fail) &&
      runChain<float>(dev, "lat_fp32_fma", "fp32 fma", iters, in_f, 0.99f, 0.01f,
                      [](float x, float b, float c) { return std::fma(x, b, c); }, exactF32, report, fail) &&
      runChain<float>(dev, "lat_fp32_div", "fp32 div.rn", iters, in_fpos, 3.0f, 0.0f,
                      [](float x, float b, float) { return b / x; }, exactF32, report, fail) &&
      runChain<float>(dev, "lat_sfu_sin", "sfu sin.approx", iters, in_f, 0.0f, 0.0f,
                      [](float x, float, float) { return approx(std::sin(static_cast<double>(x))); },
                      sinChainF32(static_cast<uint64_t>(iters) * kUnroll), report, fail) &&
      runChain<float>(dev, "lat_sfu_rsqrt", "sfu rsqrt.approx", iters, in_fpos, 0.0f, 0.0f,
                      [](float x, float, float) { return approx(1.0 / std::sqrt(static_cast<double>(x))); },
                      approxF32, report, fail) &&
      // One step of the chain as the host sees it is half a pair: kUnroll
      // operations per pass are kUnroll/2 lg2+ex2 pairs, so the host applies
      // the pair on every other step.
      runChain<float>(dev, "lat_sfu_ex2_lg2", "sfu lg2/ex2.approx", iters, in_fpos, 0.0f, 0.0f,
                      [k = uint64_t{0}](float x, float, float) mutable {
                        return (k++ & 1) ? approx(std::exp2(static_cast<double>(x)))
                                         : approx(std::log2(static_cast<double>(x)));
                      },
                      approxF32, report, fail) &&
      runChain<double>(dev, "lat_fp64_add", "fp64 add", iters, in_d, 0.1, 0.0,
                       [](double x, double b, double) { return x + b; }, exactF64, report, fail) &&
      runChain<double>(dev, "lat_fp64_fma", "fp64 fma", iters, in_d, 0.999, 0.001,
                       [](double x, double b, double c) { return std::fma(x, b, c); }, exactF64, report, fail) &&
      runChain<double>(dev, "lat_fp64_div", "fp64 div.rn", iters, in_d, 3.0, 0.0,
                       [](double x, double b, double) { return b / x; }, exactF64, report, fail);
  if (!ok) return fail;

  // Shared-memory pointer chase: one random cycle through 1024 words
  // (Sattolo's algorithm), all lanes on the same chain (broadcast loads).
  {
    const uint32_t words = 1024;  // SMEM_WORDS in the kernel
    std::vector<uint32_t> next(words);
    for (uint32_t i = 0; i < words; ++i) next[i] = i;
    for (uint32_t i = words - 1; i > 0; --i) std::swap(next[i], next[rng.below(i)]);
    const uint32_t start = rng.below(words);
    DeviceBuffer d_next(dev, next), d_out(dev, kWarp * 4), d_clk(dev, kWarp * 8);
    dev.launch("lat_smem_chase", {1}, {kWarp},
               rt::KernelArgs().ptr(d_next.addr()).ptr(d_out.addr()).ptr(d_clk.addr()).i32(iters).u32(start));
    const uint64_t ops = static_cast<uint64_t>(iters) * kUnroll;
    uint32_t p = start;
    for (uint64_t k = 0; k < ops; ++k) p = next[p];
    Check c = compareExact(d_out.download<uint32_t>(kWarp), std::vector<uint32_t>(kWarp, p),
                           "shared chase end indices");
    if (!c.passed) return c;
    if (!clockLine("shared ld chase", d_clk.download<uint64_t>(kWarp), ops, report, fail)) return fail;
  }
  // Global-memory pointer chase: a random cycle over 128-byte lines, each
  // line's first word the absolute address of the next line.
  {
    const uint32_t lines = size == Size::Small ? 1024 : 65536;  // 128 KiB or 8 MiB (above V100's 6 MiB L2)
    std::vector<uint32_t> next(lines);
    for (uint32_t i = 0; i < lines; ++i) next[i] = i;
    for (uint32_t i = lines - 1; i > 0; --i) std::swap(next[i], next[rng.below(i)]);
    DeviceBuffer d_chain(dev, size_t{lines} * 128), d_out(dev, kWarp * 8), d_clk(dev, kWarp * 8);
    std::vector<uint64_t> chain(size_t{lines} * 16, 0);
    for (uint32_t i = 0; i < lines; ++i) chain[size_t{i} * 16] = d_chain.addr() + uint64_t{next[i]} * 128;
    d_chain.upload(chain);
    dev.launch("lat_global_chase", {1}, {kWarp},
               rt::KernelArgs().ptr(d_chain.addr()).ptr(d_out.addr()).ptr(d_clk.addr()).i32(iters));
    const uint64_t ops = static_cast<uint64_t>(iters) * kUnroll;
    uint32_t p = 0;
    for (uint64_t k = 0; k < ops; ++k) p = next[p];
    Check c = compareExact(d_out.download<uint64_t>(kWarp),
                           std::vector<uint64_t>(kWarp, d_chain.addr() + uint64_t{p} * 128),
                           "global chase end addresses");
    if (!c.passed) return c;
    if (!clockLine("global ld chase", d_clk.download<uint64_t>(kWarp), ops, report, fail)) return fail;
  }
  Check c;
  c.passed = true;
  c.detail = "16 dependent chains, one warp each, final values exact (sfu: 1e-5 + 1e-4*|expected|; sin: its steps times MUFU.SIN's 2^-20.5); %clock64 deltas (functional "
             "model: warp instructions, not cycles)" +
             report.detail;
  c.measured = report.measured;
  for (Measured& m : c.measured) m.unit = dev.options().timing ? "cycle" : "count";
  return c;
}

}  // namespace

RFSIM_WORKLOAD("ubench_latency",
               "microbenchmark: dependent-instruction latency per unit class, shared/global pointer chase, timed "
               "with %clock64",
               "workloads/ubench_latency/ubench_latency.ptx", {"ubench"}, runLatency);

}  // namespace rfsim::workloads
