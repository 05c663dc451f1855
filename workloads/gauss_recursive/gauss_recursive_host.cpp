#include <cmath>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

struct Coefs {
  float a0, a1, a2, a3, b1, b2, coefp, coefn;
};

// Deriche's recursive approximation of a Gaussian of deviation sigma (order 0).
Coefs deriche(float sigma) {
  const float alpha = 1.695f / sigma, ema = std::exp(-alpha), ema2 = std::exp(-2.0f * alpha);
  Coefs c;
  c.b1 = -2.0f * ema;
  c.b2 = ema2;
  const float k = (1.0f - ema) * (1.0f - ema) / (1.0f + 2.0f * alpha * ema - ema2);
  c.a0 = k;
  c.a1 = k * (alpha - 1.0f) * ema;
  c.a2 = k * (alpha + 1.0f) * ema;
  c.a3 = -k * ema2;
  c.coefp = (c.a0 + c.a1) / (1.0f + c.b1 + c.b2);
  c.coefn = (c.a2 + c.a3) / (1.0f + c.b1 + c.b2);
  return c;
}

struct F4 {
  double v[4];
};
F4 unpack(uint32_t c) { return {{double(c & 0xff), double((c >> 8) & 0xff), double((c >> 16) & 0xff), double(c >> 24)}}; }

Check runGaussRecursive(rt::Device& dev, Size size) {
  // Small: 4 blocks of 64 columns; large: 512 blocks (the paper's 500 are
  // grid-limited on 24 SMs too: docs/regdem.md).
  const int width = size == Size::Small ? 256 : 32768;
  const int height = size == Size::Small ? 64 : 64;
  Rng rng(9);
  std::vector<uint32_t> img(size_t(width) * height);
  for (auto& p : img) p = rng.next32();
  const Coefs k = deriche(4.0f);
  DeviceBuffer d_in(dev, img), d_out(dev, img.size() * 4), d_tmp(dev, img.size() * 16);
  dev.launch("gauss_recursive", {uint32_t(width / 64)}, {64},
             rt::KernelArgs().ptr(d_in.addr()).ptr(d_out.addr()).ptr(d_tmp.addr()).i32(width).i32(height).raw(
                 &k, sizeof k));
  const std::vector<uint32_t> got = d_out.download<uint32_t>(img.size());
  // The reference in double: the device's float arithmetic (with nvcc's
  // fma contractions) may round a channel to the neighbouring byte.
  size_t off_by_one = 0;
  std::vector<F4> causal(height);
  for (int x = 0; x < width; ++x) {
    F4 xp = unpack(img[x]), yp, yb;
    for (int c = 0; c < 4; ++c) yp.v[c] = k.coefp * xp.v[c];
    yb = yp;
    for (int i = 0; i < height; ++i) {
      const F4 xc = unpack(img[size_t(i) * width + x]);
      F4 yc;
      for (int c = 0; c < 4; ++c)
        yc.v[c] = double(k.a0) * xc.v[c] + double(k.a1) * xp.v[c] - double(k.b1) * yp.v[c] - double(k.b2) * yb.v[c];
      causal[i] = yc;
      xp = xc, yb = yp, yp = yc;
    }
    F4 xn = unpack(img[size_t(height - 1) * width + x]), xa = xn, yn, ya;
    for (int c = 0; c < 4; ++c) yn.v[c] = k.coefn * xn.v[c];
    ya = yn;
    for (int i = height - 1; i >= 0; --i) {
      const F4 xc = unpack(img[size_t(i) * width + x]);
      F4 yc;
      for (int c = 0; c < 4; ++c)
        yc.v[c] = double(k.a2) * xn.v[c] + double(k.a3) * xa.v[c] - double(k.b1) * yn.v[c] - double(k.b2) * ya.v[c];
      xa = xn, xn = xc, ya = yn, yn = yc;
      const uint32_t g = got[size_t(i) * width + x];
      for (int c = 0; c < 4; ++c) {
        const double want = std::floor(std::min(std::max(causal[i].v[c] + yc.v[c], 0.0), 255.0) + 0.5);
        const double have = double((g >> (8 * c)) & 0xff);
        if (std::fabs(have - want) > 1.0)
          return {false, fmt::format("pixel ({}, {}) channel {} is {}, expected {}", x, i, c, have, want)};
        off_by_one += have != want;
      }
    }
  }
  return {true, fmt::format("{}x{} RGBA pixels filtered down their columns (sigma 4); {} channels of {} one off "
                            "the double-precision reference",
                            width, height, off_by_one, img.size() * 4)};
}

}  // namespace

RFSIM_WORKLOAD("gauss_recursive", "recursive Gaussian (Deriche) down RGBA columns (RegDem suite: gaussian)",
               "workloads/gauss_recursive/gauss_recursive.ptx", {"regdem"}, runGaussRecursive);

}  // namespace rfsim::workloads
