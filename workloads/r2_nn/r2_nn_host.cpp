#include <algorithm>
#include <cmath>
#include <numeric>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

struct LatLong {
  float lat;
  float lng;
};

constexpr uint32_t kThreads = 256;
constexpr uint32_t kMaxGridX = 65535;  // Rodinia folds more blocks into a 2-D grid

Check runR2Nn(rt::Device& dev, Size size) {
  // Small: 100000 records: 391 blocks of 256 (the last one partial; 4.9
  // blocks per SM), one launch; Large: 4M records, 16384 blocks.
  const int n = size == Size::Small ? 100000 : 1 << 22;
  const int k = 10;  // Rodinia's default number of neighbours
  const float target_lat = 30.0f, target_lng = 90.0f;
  Rng rng(208);
  // Rodinia's records are hurricane positions: latitudes 0..90, longitudes
  // 0..360.
  std::vector<LatLong> records(n);
  for (auto& r : records) r = LatLong{rng.uniform(0.0f, 90.0f), rng.uniform(0.0f, 360.0f)};

  DeviceBuffer d_locations(dev, records), d_distances(dev, size_t(n) * sizeof(float));
  const uint32_t blocks = ceilDiv(n, kThreads);
  const rt::Dim3 grid{std::min(blocks, kMaxGridX), ceilDiv(blocks, kMaxGridX)};
  dev.launch("r2_euclid", grid, {kThreads},
             rt::KernelArgs().ptr(d_locations.addr()).ptr(d_distances.addr()).i32(n).f32(target_lat).f32(target_lng));
  std::vector<float> got = d_distances.download<float>(n);

  // nvcc compiles the sum of squares to fma(dlat, dlat, dlng * dlng) and
  // sqrtf to the correctly rounded sqrt: with fmaf the reference rounds the
  // same operations, so the distances match exactly.
  std::vector<float> ref(n);
  for (int i = 0; i < n; ++i) {
    const float dlat = target_lat - records[i].lat, dlng = target_lng - records[i].lng;
    ref[i] = std::sqrt(std::fmaf(dlat, dlat, dlng * dlng));
  }
  Check c = compareExact(got, ref, "distances");
  if (!c.passed) return c;

  // The host's part: the k nearest records (ties by index).
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::partial_sort(order.begin(), order.begin() + k, order.end(),
                    [&](int a, int b) { return got[a] != got[b] ? got[a] < got[b] : a < b; });
  c.detail = fmt::format("{} records, grid {}x{} of {}; nearest of {}: record {} at {:.4f}, {}th at {:.4f}; {}", n,
                         grid.x, grid.y, kThreads, k, order[0], got[order[0]], k, got[order[k - 1]], c.detail);
  return c;
}

}  // namespace

RFSIM_WORKLOAD("r2_nn", "Rodinia nn: Euclidean distance of every record to a target, 1-D blocks of 256 (R2D2 suite)",
               "workloads/r2_nn/r2_nn.ptx", {"r2d2", "rodinia"}, runR2Nn);

}  // namespace rfsim::workloads
