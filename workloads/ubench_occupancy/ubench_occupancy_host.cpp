// Occupancy microbenchmark (see ubench_occupancy.cu): one chain of dependent
// FMAs per thread, launched with blocks of 64, 128 and 256 threads. The
// check repeats every thread's chain on the host (fmaf, bit-exact). Each
// launch's record (cycles, blocks per SM, registers) is one point of
// f(occupancy); scripts/regdem_f_occupancy.sh sweeps the register count.
//
// RegDem (section 4) measures f "only [for] the impact of occupancy on
// performance". So with a GPU configuration the grid is a whole number of
// waves (4, small input 1) of the blocks the SMs hold at the kernel's
// registers: no launch ends in a part-filled wave, whose tail would depend
// on how the grid divides, not on the occupancy. The time per thread is
// then comparable across occupancies.
#include <cmath>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr int kUnroll = 32;  // UNROLL in the kernel
constexpr float kB = 0.999f;

// Blocks of `block` threads in `waves` whole waves on the device's GPU, or
// 0 without a GPU configuration (a functional run of the PTX).
uint32_t wholeWaves(const rt::Device& dev, uint32_t block, uint32_t waves) {
  return waves * dev.waveBlocks("occ_fma", block);
}

Check runOccupancy(rt::Device& dev, Size size) {
  // Without a GPU configuration: the waves of titanx (24 SMs of 2048
  // threads) at full occupancy; the output buffer holds the largest grid.
  const uint32_t waves = size == Size::Small ? 1 : 4;
  const uint32_t fixed_threads = waves * 24u * 2048u;
  const int iters = size == Size::Small ? 4 : 16;
  Rng rng(17);
  std::vector<float> in(256);
  for (auto& v : in) v = rng.uniform(-1.0f, 1.0f);
  std::vector<float> chain(256);
  for (int j = 0; j < 256; ++j) {
    float x = in[j];
    const float c = in[(j + 1) & 255] * 0.001f;
    for (int k = 0; k < iters * kUnroll; ++k) x = std::fmaf(x, kB, c);
    chain[j] = x;
  }
  uint32_t most = fixed_threads;
  for (uint32_t block : {64u, 128u, 256u}) most = std::max(most, wholeWaves(dev, block, waves) * block);
  DeviceBuffer d_in(dev, in), d_out(dev, most * sizeof(float));
  std::string detail = fmt::format("one chain of {} dependent FMAs per thread, blocks of", iters * kUnroll);
  for (uint32_t block : {64u, 128u, 256u}) {
    const uint32_t blocks = wholeWaves(dev, block, waves);
    const uint32_t threads_total = blocks ? blocks * block : fixed_threads;
    dev.launch("occ_fma", {threads_total / block}, {block},
               rt::KernelArgs().ptr(d_in.addr()).ptr(d_out.addr()).i32(iters).f32(kB));
    const auto got = d_out.download<float>(threads_total);
    for (uint32_t t = 0; t < threads_total; ++t)
      if (!(got[t] == chain[t & 255])) {
        Check fail;
        fail.detail = fmt::format("blocks of {}: thread {} is {:.9g}, expected exactly {:.9g}", block, t, got[t],
                                  chain[t & 255]);
        return fail;
      }
    detail += fmt::format(" {} ({} threads)", block, threads_total);
  }
  Check c;
  c.passed = true;
  c.detail = detail + ": every thread's result exact";
  return c;
}

}  // namespace

RFSIM_WORKLOAD("ubench_occupancy",
               "microbenchmark: one chain of dependent FMAs per thread in blocks of 64, 128 and 256 threads, for "
               "RegDem's f(occupancy) (scripts/regdem_f_occupancy.sh pads the register count)",
               "workloads/ubench_occupancy/ubench_occupancy.ptx", {"ubench"}, runOccupancy);

}  // namespace rfsim::workloads
