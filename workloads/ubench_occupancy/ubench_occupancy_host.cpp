// Occupancy microbenchmark (see ubench_occupancy.cu): one chain of dependent
// FMAs per thread, launched with blocks of 64, 128 and 256 threads. The
// check repeats every thread's chain on the host (fmaf, bit-exact). Each
// launch's record (cycles, blocks per SM, registers) is one point of
// f(occupancy); scripts/regdem_f_occupancy.sh sweeps the register count.
#include <cmath>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr int kUnroll = 32;  // UNROLL in the kernel
constexpr float kB = 0.999f;

Check runOccupancy(rt::Device& dev, Size size) {
  // Enough blocks that every SM of titanx (24) is full at the highest
  // occupancy for several rounds: 2048 threads per SM.
  const uint32_t threads_total = size == Size::Small ? 24u * 2048u : 4u * 24u * 2048u;
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
  DeviceBuffer d_in(dev, in), d_out(dev, threads_total * sizeof(float));
  std::string detail = fmt::format("{} threads, one chain of {} dependent FMAs each, blocks of", threads_total,
                                   iters * kUnroll);
  for (uint32_t block : {64u, 128u, 256u}) {
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
    detail += fmt::format(" {}", block);
  }
  Check c;
  c.passed = true;
  c.detail = detail + " threads: every thread's result exact";
  return c;
}

}  // namespace

RFSIM_WORKLOAD("ubench_occupancy",
               "microbenchmark: one chain of dependent FMAs per thread in blocks of 64, 128 and 256 threads, for "
               "RegDem's f(occupancy) (scripts/regdem_f_occupancy.sh pads the register count)",
               "workloads/ubench_occupancy/ubench_occupancy.ptx", {"ubench"}, runOccupancy);

}  // namespace rfsim::workloads
