#include <cmath>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

Check runNn(rt::Device& dev, Size size) {
  // Small: 16384 records (64 blocks of 256 for the distances, then 32 and
  // 1 reduction blocks); Large: 4 M records.
  const int n = size == Size::Small ? 16384 : 1 << 22;
  Rng rng(42);
  // Hurricane positions as in Rodinia's nn: latitude 7..70, longitude 0..358.
  std::vector<float> records(size_t(n) * 2);
  for (int i = 0; i < n; ++i) {
    records[2 * size_t(i)] = rng.uniform(7.0f, 70.0f);
    records[2 * size_t(i) + 1] = rng.uniform(0.0f, 358.0f);
  }
  const float lat = 30.0f, lng = 90.0f;

  DeviceBuffer d_records(dev, records), d_dist(dev, size_t(n) * sizeof(float));
  const uint32_t block = 256;
  dev.launch("lt_nn_distance", {ceilDiv(n, block)}, {block},
             rt::KernelArgs().ptr(d_records.addr()).i32(n).f32(lat).f32(lng).ptr(d_dist.addr()));
  // The reduction: each block takes 2 * 256 pairs, until one is left.
  int count = n, launches = 1;
  const uint32_t per_block = 2 * block;
  DeviceBuffer d_pd(dev, size_t(ceilDiv(n, per_block)) * sizeof(float)),
      d_pi(dev, size_t(ceilDiv(n, per_block)) * sizeof(int)), d_qd(dev, d_pd.bytes()), d_qi(dev, d_pi.bytes());
  uint64_t in_dist = d_dist.addr(), in_index = 0, out_dist = d_pd.addr(), out_index = d_pi.addr();
  do {
    const uint32_t blocks = ceilDiv(count, per_block);
    dev.launch("lt_nn_argmin", {blocks}, {block},
               rt::KernelArgs().ptr(in_dist).ptr(in_index).i32(count).ptr(out_dist).ptr(out_index));
    ++launches;
    count = int(blocks);
    in_dist = out_dist, in_index = out_index;
    out_dist = out_dist == d_pd.addr() ? d_qd.addr() : d_pd.addr();
    out_index = out_index == d_pi.addr() ? d_qi.addr() : d_pi.addr();
  } while (count > 1);
  float got_dist = 0.0f;
  int got_index = 0;
  dev.memcpyDtoH(&got_dist, in_dist, sizeof got_dist);
  dev.memcpyDtoH(&got_index, in_index, sizeof got_index);

  // The kernel's distance, bit for bit (single roundings: fmaf, a product,
  // a correctly rounded square root), and the first nearest record.
  std::vector<float> want(n);
  int best = 0;
  for (int i = 0; i < n; ++i) {
    const float dx = records[2 * size_t(i)] - lat, dy = records[2 * size_t(i) + 1] - lng;
    want[i] = std::sqrt(std::fmaf(dx, dx, dy * dy));
    if (want[i] < want[best]) best = i;
  }
  Check c = compareExact(d_dist.download<float>(n), want, "record distances (bit-exact)");
  if (!c.passed) return c;
  if (got_index != best || got_dist != want[best]) {
    return Check{false, fmt::format("nearest record {} at {:.9g}, expected {} at {:.9g}", got_index, got_dist, best,
                                    want[best])};
  }
  c.detail += fmt::format("; nearest record {} at {:.6g} after {} launches, exact", best, want[best], launches);
  return c;
}

}  // namespace

RFSIM_WORKLOAD("lt_nn",
               "nearest neighbour: the distance of every record to a target, then a (distance, index) "
               "min-reduction in shared memory (LTRF suite)",
               "workloads/lt_nn/lt_nn.ptx", {"ltrf", "reginsens", "memory", "shared", "barrier", "multi-launch"},
               runNn);

}  // namespace rfsim::workloads
