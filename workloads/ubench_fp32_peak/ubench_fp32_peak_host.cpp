// Peak FP32 issue rate (see ubench_fp32_peak.cu): 8 independent FMA chains
// per thread, a whole wave of 256-thread blocks at the kernel's occupancy,
// launched with 2 and then 6 loop passes. The check repeats every thread's
// chains and sum on the host (fmaf, bit-exact). The rate is the difference
// of the two launches' FP32 warp instructions per cycle per SM
// (scripts/ubench_table.py reads both launches' records).
#include <cmath>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr int kUnroll = 8;  // UNROLL in the kernel
constexpr float kB = 0.999f;
constexpr uint32_t kBlock = 256;

// Threads of one whole wave of blocks on the device's GPU; without a GPU
// configuration (a functional run) titanx's: 24 SMs of 2048.
uint32_t waveThreads(const rt::Device& dev) {
  const uint32_t blocks = dev.waveBlocks("fma_peak", kBlock);
  return blocks ? blocks * kBlock : 24u * 2048u;
}

Check runFp32Peak(rt::Device& dev, Size) {
  Rng rng(23);
  std::vector<float> in(256);
  for (auto& v : in) v = rng.uniform(-1.0f, 1.0f);
  const uint32_t threads = waveThreads(dev);
  DeviceBuffer d_in(dev, in), d_out(dev, size_t{threads} * 4);
  for (int iters : {2, 6}) {
    dev.launch("fma_peak", {threads / kBlock}, {kBlock},
               rt::KernelArgs().ptr(d_in.addr()).ptr(d_out.addr()).i32(iters).f32(kB));
    // Thread t's result depends on t mod 256 only.
    std::vector<float> ref(256);
    for (uint32_t j = 0; j < 256; ++j) {
      float x[8];
      for (int k = 0; k < 8; ++k) x[k] = in[(j + k) & 255];
      const float c = in[(j + 8) & 255] * 0.001f;
      for (int i = 0; i < iters * kUnroll; ++i)
        for (int k = 0; k < 8; ++k) x[k] = std::fmaf(x[k], kB, c);
      float s = 0.0f;
      for (int k = 0; k < 8; ++k) s += x[k];
      ref[j] = s;
    }
    const auto got = d_out.download<float>(threads);
    for (uint32_t t = 0; t < threads; ++t) {
      if (!(got[t] == ref[t & 255])) {
        Check fail;
        fail.detail = fmt::format("{} passes: thread {} is {:.9g}, expected exactly {:.9g}", iters, t, got[t],
                                  ref[t & 255]);
        return fail;
      }
    }
  }
  Check c;
  c.passed = true;
  c.detail = fmt::format("{} threads (blocks of {}), 8 independent FMA chains each, 2 and 6 passes of {} FMAs per "
                         "chain: every thread's sum exact",
                         threads, kBlock, kUnroll);
  return c;
}

}  // namespace

RFSIM_WORKLOAD("ubench_fp32_peak",
               "microbenchmark: peak FP32 issue rate, 8 independent FMA chains per thread in one whole wave of "
               "blocks, launched with 2 and 6 loop passes (the rate is their difference)",
               "workloads/ubench_fp32_peak/ubench_fp32_peak.ptx", {"ubench"}, runFp32Peak);

}  // namespace rfsim::workloads
