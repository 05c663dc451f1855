#include <algorithm>
#include <cmath>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr int kB = 16;  // BLOCK_SIZE in the kernels

// The three kernels on the host, tile by tile, with the device's float
// operations in the device's order: r2_lud_diagonal and r2_lud_perimeter
// accumulate `x - a * b` as a multiply and a subtract (no fma in their
// PTX), each division is correctly rounded, and r2_lud_internal sums its 16
// products in one fma chain from 0 and subtracts the sum. The launches
// of one block step touch disjoint tiles, so the order of their blocks
// does not matter. The model runs the PTX exactly and matches bit for bit;
// on hardware ptxas may contract the PTX's mul.f32 and sub.f32 (no rounding
// modifier) into an fma, one rounding instead of two per update, so the
// check allows an ulp per update an element went through (at most n).
struct HostLud {
  std::vector<float>& m;
  int n;
  float& at(int r, int c) { return m[size_t(r) * n + c]; }

  void diagonal(int off) {
    float s[kB][kB];
    for (int i = 0; i < kB; ++i)
      for (int t = 0; t < kB; ++t) s[i][t] = at(off + i, off + t);
    for (int i = 0; i < kB - 1; ++i) {
      for (int t = i + 1; t < kB; ++t) {
        float v = s[t][i];
        for (int j = 0; j < i; ++j) v = v - s[t][j] * s[j][i];
        s[t][i] = v / s[i][i];
      }
      for (int t = i + 1; t < kB; ++t) {
        float v = s[i + 1][t];
        for (int j = 0; j < i + 1; ++j) v = v - s[i + 1][j] * s[j][t];
        s[i + 1][t] = v;
      }
    }
    for (int i = 1; i < kB; ++i)
      for (int t = 0; t < kB; ++t) at(off + i, off + t) = s[i][t];
  }

  void perimeter(int off, int blocks) {
    for (int b = 0; b < blocks; ++b) {
      const int c0 = off + (b + 1) * kB;    // the row tile's first column, the column tile's first row
      for (int idx = 0; idx < kB; ++idx) {  // the tile row: L^-1 A, column idx
        for (int i = 1; i < kB; ++i) {
          float v = at(off + i, c0 + idx);
          for (int j = 0; j < i; ++j) v = v - at(off + i, off + j) * at(off + j, c0 + idx);
          at(off + i, c0 + idx) = v;
        }
      }
      for (int idx = 0; idx < kB; ++idx) {  // the tile column: A U^-1, row idx
        for (int i = 0; i < kB; ++i) {
          float v = at(c0 + idx, off + i);
          for (int j = 0; j < i; ++j) v = v - at(c0 + idx, off + j) * at(off + j, off + i);
          at(c0 + idx, off + i) = v / at(off + i, off + i);
        }
      }
    }
  }

  void internal(int off, int blocks) {
    for (int by = 0; by < blocks; ++by)
      for (int bx = 0; bx < blocks; ++bx) {
        const int r0 = off + (by + 1) * kB, c0 = off + (bx + 1) * kB;
        for (int ty = 0; ty < kB; ++ty)
          for (int tx = 0; tx < kB; ++tx) {
            float sum = 0.0f;
            for (int i = 0; i < kB; ++i) sum = std::fmaf(at(r0 + ty, off + i), at(off + i, c0 + tx), sum);
            at(r0 + ty, c0 + tx) = at(r0 + ty, c0 + tx) - sum;
          }
      }
  }
};

Check runR2Lud(rt::Device& dev, Size size) {
  // Small: 224 x 224: 13 block steps of r2_lud_diagonal (1 x 16),
  // r2_lud_perimeter (13 .. 1 blocks of 32) and r2_lud_internal (13x13 .. 1x1
  // blocks of 16x16), and the last diagonal tile: 40 launches; Large:
  // 512 x 512, 94 launches, internal grids from 31 x 31.
  const int n = size == Size::Small ? 224 : 512;
  Rng rng(207);
  // Diagonally dominant, so that the factorisation without pivoting is
  // stable (Rodinia's generated matrices are too).
  std::vector<float> a(size_t(n) * n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) a[size_t(i) * n + j] = rng.uniform(-1.0f, 1.0f);
    a[size_t(i) * n + i] = float(n) * 0.5f + rng.uniform(0.0f, 1.0f);
  }

  DeviceBuffer d_m(dev, a);
  std::vector<float> ref = a;
  HostLud host{ref, n};
  int launches = 0, i = 0;
  for (; i < n - kB; i += kB) {
    const uint32_t tiles = uint32_t((n - i) / kB - 1);
    dev.launch("r2_lud_diagonal", {1}, {kB}, rt::KernelArgs().ptr(d_m.addr()).i32(n).i32(i));
    dev.launch("r2_lud_perimeter", {tiles}, {2 * kB}, rt::KernelArgs().ptr(d_m.addr()).i32(n).i32(i));
    dev.launch("r2_lud_internal", {tiles, tiles}, {kB, kB}, rt::KernelArgs().ptr(d_m.addr()).i32(n).i32(i));
    launches += 3;
    host.diagonal(i);
    host.perimeter(i, int(tiles));
    host.internal(i, int(tiles));
  }
  dev.launch("r2_lud_diagonal", {1}, {kB}, rt::KernelArgs().ptr(d_m.addr()).i32(n).i32(i));
  ++launches;
  host.diagonal(i);

  std::vector<float> got = d_m.download<float>(a.size());
  double big = 0.0;
  for (float x : ref) big = std::max(big, double(std::fabs(x)));
  const double rtol = double(n) * std::ldexp(1.0, -23);
  Check c = compareFloats(got, std::vector<double>(ref.begin(), ref.end()), rtol, rtol * big, "elements of L and U");
  if (!c.passed) return c;

  // How well L U reproduces the matrix (L unit lower, U upper, both in
  // `got`): reported, not checked (the comparison above is the check).
  double worst = 0.0;
  for (int r = 0; r < n; ++r)
    for (int col = 0; col < n; ++col) {
      double s = 0.0;
      for (int k = 0; k <= std::min(r, col); ++k) {
        const double l = k == r ? 1.0 : got[size_t(r) * n + k];
        s += l * got[size_t(k) * n + col];
      }
      worst = std::max(worst, std::fabs(s - a[size_t(r) * n + col]));
    }
  c.detail = fmt::format("{0}x{0} matrix, {1} launches, max |LU - A| {2:.2g}; {3}", n, launches, worst, c.detail);
  return c;
}

}  // namespace

RFSIM_WORKLOAD("r2_lud",
               "Rodinia lud: blocked LU decomposition, lud_diagonal / lud_perimeter / lud_internal per 16x16 "
               "block step: many small launches (R2D2 suite)",
               "workloads/r2_lud/r2_lud.ptx", {"r2d2", "rodinia", "multi-launch"}, runR2Lud);

}  // namespace rfsim::workloads
