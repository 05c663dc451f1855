#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

Check runConv2d(rt::Device& dev, Size size) {
  // Small: neither side a multiple of the 16 x 16 block, so edge blocks have idle threads.
  const int width = size == Size::Small ? 70 : 1920;
  const int height = size == Size::Small ? 50 : 1080;
  constexpr int R = 2, W = 2 * R + 1;
  Rng rng(5);
  std::vector<float> image(size_t(width) * height), filter(W * W);
  for (auto& v : image) v = rng.uniform(0.0f, 1.0f);
  for (auto& v : filter) v = rng.uniform(-0.2f, 0.2f);

  // The filter goes into the module's __constant__ array, as cudaMemcpyToSymbol would.
  dev.memcpyHtoD(dev.symbolAddress("c_filter"), filter.data(), filter.size() * sizeof(float));
  DeviceBuffer d_in(dev, image), d_out(dev, image.size() * sizeof(float));
  const uint32_t bx = 16, by = 16;
  dev.launch("conv2d_5x5", {ceilDiv(width, bx), ceilDiv(height, by)}, {bx, by},
             rt::KernelArgs().ptr(d_in.addr()).ptr(d_out.addr()).i32(width).i32(height));

  std::vector<double> ref(image.size());
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      double sum = 0.0;
      for (int fy = -R; fy <= R; ++fy) {
        for (int fx = -R; fx <= R; ++fx) {
          int ix = x + fx, iy = y + fy;
          if (ix >= 0 && ix < width && iy >= 0 && iy < height) {
            sum += double(filter[(fy + R) * W + fx + R]) * image[size_t(iy) * width + ix];
          }
        }
      }
      ref[size_t(y) * width + x] = sum;
    }
  }
  // 25 float multiply-adds of terms below 0.2 in magnitude: at most 25 half-ulps
  // of partial sums below ~2.5, so 2e-6 absolute; a wrong or missing tap
  // errs by ~1e-2.
  return compareFloats(d_out.download<float>(image.size()), ref, 1e-5, 2e-6,
                       fmt::format("pixels ({}x{}, 5x5 filter, zero padding)", width, height));
}

}  // namespace

RFSIM_WORKLOAD("conv2d", "5x5 convolution, filter in __constant__ memory, zero-padded borders",
               "workloads/conv2d/conv2d.ptx", {"memory", "constant", "divergence"}, runConv2d);

}  // namespace rfsim::workloads
