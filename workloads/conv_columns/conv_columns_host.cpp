#include <cmath>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr int kRadius = 8, kTaps = 2 * kRadius + 1, kBx = 16, kBy = 8, kSteps = 8;

Check runConvColumns(rt::Device& dev, Size size) {
  // Small: a 128 x 256 image (32 blocks); large: 2048 x 2048 (4096 blocks;
  // the paper's 4K x 4K has 16 384).
  const int width = size == Size::Small ? 128 : 2048;
  const int height = size == Size::Small ? 256 : 2048;
  Rng rng(5);
  std::vector<float> img(size_t(width) * height), taps(kTaps);
  for (auto& v : img) v = rng.uniform(0.0f, 1.0f);
  for (auto& t : taps) t = rng.uniform(-0.5f, 0.5f);
  dev.memcpyHtoD(dev.symbolAddress("taps"), taps.data(), taps.size() * sizeof(float));
  DeviceBuffer d_src(dev, img), d_dst(dev, img.size() * sizeof(float));
  d_dst.zero();
  dev.launch("conv_columns", {uint32_t(width / kBx), uint32_t(height / (kSteps * kBy))}, {kBx, kBy},
             rt::KernelArgs().ptr(d_dst.addr()).ptr(d_src.addr()).i32(width).i32(height).i32(width));
  // The kernel sums the taps from k = -R to R, each product contracted into
  // an fma (nvcc): the same order and roundings here give the same bits.
  std::vector<double> ref(img.size());
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      float acc = 0.0f;
      for (int k = -kRadius; k <= kRadius; ++k) {
        const float v = y + k >= 0 && y + k < height ? img[size_t(y + k) * width + x] : 0.0f;
        acc = std::fmaf(taps[kRadius - k], v, acc);
      }
      ref[size_t(y) * width + x] = acc;
    }
  return compareFloats(d_dst.download<float>(img.size()), ref, 0.0, 0.0,
                       fmt::format("pixels of a {}x{} image filtered down its columns ({} taps)", width, height,
                                   kTaps));
}

}  // namespace

RFSIM_WORKLOAD("conv_columns", "separable convolution's column pass, a shared-memory tile (RegDem suite: conv)",
               "workloads/conv_columns/conv_columns.ptx", {"regdem", "shared", "barrier", "constant"},
               runConvColumns);

}  // namespace rfsim::workloads
