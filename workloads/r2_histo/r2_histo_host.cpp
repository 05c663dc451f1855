#include <algorithm>
#include <cstdint>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr int kBins = 1024;  // BINS in the kernel

Check runR2Histo(rt::Device& dev, Size size) {
  // Small: a 512 x 480 image of 10-bit values, strips of 32 rows (grid
  // 16 x 15 = 240 blocks of 32 x 8 threads, 4 pixels a thread), then the
  // saturating pass over the 1024 bins (4 blocks of 256); Large: 2048 x 1536,
  // strips of 64 rows (64 x 24 = 1536 blocks, 8 pixels a thread).
  const int width = size == Size::Small ? 512 : 2048;
  const int height = size == Size::Small ? 480 : 1536;
  const int rows_per_block = size == Size::Small ? 32 : 64;
  Rng rng(205);
  // Like Parboil's input, most values fall in a few peaks: a sum of three
  // uniform values around one of four centres (hot bins whose counts pass
  // 255 and saturate, with contended atomics), and one pixel in sixteen
  // uniform over all 1024 values (cold bins below 255, some empty).
  const int centres[4] = {150, 400, 620, 900};
  std::vector<uint16_t> img(size_t(width) * height);
  for (auto& v : img) {
    if (rng.below(16) == 0) {
      v = uint16_t(rng.below(kBins));
    } else {
      const int c = centres[rng.below(4)];
      const int spread = int(rng.below(41) + rng.below(41) + rng.below(41)) - 60;
      v = uint16_t(std::clamp(c + spread, 0, kBins - 1));
    }
  }

  DeviceBuffer d_img(dev, img), d_bins(dev, kBins * sizeof(uint32_t)), d_out(dev, kBins);
  d_bins.zero();
  dev.launch("r2_histo_main", {ceilDiv(width, 32), ceilDiv(height, rows_per_block)}, {32, 8},
             rt::KernelArgs().ptr(d_img.addr()).i32(width).i32(height).i32(rows_per_block).ptr(d_bins.addr()));
  dev.launch("r2_histo_final", {ceilDiv(kBins, 256)}, {256},
             rt::KernelArgs().ptr(d_bins.addr()).ptr(d_out.addr()).i32(kBins));

  std::vector<uint32_t> ref(kBins, 0);
  for (uint16_t v : img) ++ref[v];
  std::vector<uint8_t> ref_out(kBins);
  for (int b = 0; b < kBins; ++b) ref_out[b] = uint8_t(std::min<uint32_t>(ref[b], 255));
  // Integer counts: exact.
  Check c = compareExact(d_bins.download<uint32_t>(kBins), ref, "32-bit bins");
  if (!c.passed) return c;
  const auto saturated = std::count(ref_out.begin(), ref_out.end(), uint8_t(255));
  c = compareExact(d_out.download<uint8_t>(kBins), ref_out, "8-bit saturated bins");
  if (c.passed)
    c.detail = fmt::format("{}x{} pixels: 32-bit bins and {} ({} saturated)", width, height, c.detail, saturated);
  return c;
}

}  // namespace

RFSIM_WORKLOAD("r2_histo",
               "Parboil histo (R2D2 suite): 1024-bin histogram of 10-bit pixels, shared-memory sub-histograms and "
               "atomics on a 2-D grid, then 8-bit saturation",
               "workloads/r2_histo/r2_histo.ptx", {"r2d2", "parboil", "atomics", "shared", "barrier", "multi-launch"},
               runR2Histo);

}  // namespace rfsim::workloads
