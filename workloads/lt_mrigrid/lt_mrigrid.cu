// MRI gridding (LTRF suite, register-sensitive; after Parboil's
// mri-gridding): non-uniform k-space samples (a position in grid units and
// a complex value each) are interpolated onto a uniform 3-D grid through a
// separable Kaiser-Bessel-like window of half-width 2 grid units,
//   grid(g) = sum over samples s with |g - s| < 2 per axis of
//             w(gx - sx) w(gy - sy) w(gz - sz) * value(s),
// w(d) = I0(beta * sqrt(1 - (d/2)^2)) - 1, I0 by its power series to t^8
// (t = beta^2 (1 - (d/2)^2) / 4; no square root needed). Less 1, the
// Kaiser-Bessel window falls to 0 at its edge, so a sample within rounding
// of a window's edge adds next to nothing either way.
//
// Gather form: the host sorts the samples into cubic bins of BIN = 4 grid
// units, so the samples that reach a grid point lie in the bins around it.
// Register blocking along x: a thread owns NP = 2 * BIN points of one x-row
// (two bins), so its points share their 4 x 3 x 3 neighbour bins and each
// sample's y and z weights; 2 * NP accumulators (real and imaginary) live
// across the sample loop.
#define BIN 4
#define NP (2 * BIN)
#define HALF 2.0f

__device__ __forceinline__ float window(float d, float c) {
  // (beta/2)^2 (1 - (d/HALF)^2), factored: 1 - d/HALF is exact for the d
  // near the edge, where 1 - (d/HALF)^2 would cancel.
  const float t = c * ((1.0f - d * (1.0f / HALF)) * (1.0f + d * (1.0f / HALF)));
  // I0 - 1 = sum t^k / (k!)^2, k = 1..8, by Horner.
  float s = 1.0f + t * (1.0f / 64.0f);
  s = 1.0f + t * (1.0f / 49.0f) * s;
  s = 1.0f + t * (1.0f / 36.0f) * s;
  s = 1.0f + t * (1.0f / 25.0f) * s;
  s = 1.0f + t * (1.0f / 16.0f) * s;
  s = 1.0f + t * (1.0f / 9.0f) * s;
  s = 1.0f + t * (1.0f / 4.0f) * s;
  return t * s;
}

// samples: (x, y, z, unused) and values (re, im), sorted by bin;
// bin_start: first sample of each bin, nbx * nby * nbz + 1 entries (bin
// (bz * nby + by) * nbx + bx); grid: nx x ny x nz complex (re, im), nx = nbx
// * BIN and so on, nbx even; c = beta^2 / 4.
extern "C" __global__ void __launch_bounds__(128) lt_mrigrid(const float4* __restrict__ samples,
                                                             const float2* __restrict__ values,
                                                             const int* __restrict__ bin_start,
                                                             float2* __restrict__ grid, int nbx, int nby, int nbz,
                                                             float c) {
  const int bx = 2 * (blockIdx.x * blockDim.x + threadIdx.x);
  const int j = blockIdx.y * blockDim.y + threadIdx.y;
  const int k = blockIdx.z * blockDim.z + threadIdx.z;
  const int nx = nbx * BIN, ny = nby * BIN;
  if (bx >= nbx || j >= ny || k >= nbz * BIN) return;
  const int by = j / BIN, bz = k / BIN;
  const float gx0 = float(bx * BIN), gy = float(j), gz = float(k);

  float re[NP], im[NP];
#pragma unroll
  for (int p = 0; p < NP; ++p) re[p] = 0.0f, im[p] = 0.0f;

  for (int z = max(bz - 1, 0); z <= min(bz + 1, nbz - 1); ++z) {
    for (int y = max(by - 1, 0); y <= min(by + 1, nby - 1); ++y) {
      const int row = (z * nby + y) * nbx;
      const int first = bin_start[row + max(bx - 1, 0)];
      const int last = bin_start[row + min(bx + 2, nbx - 1) + 1];
      for (int s = first; s < last; ++s) {
        const float4 pos = samples[s];
        const float dy = gy - pos.y, dz = gz - pos.z;
        if (fabsf(dy) >= HALF || fabsf(dz) >= HALF) continue;
        const float2 val = values[s];
        const float wyz = window(dy, c) * window(dz, c);
        const float vr = wyz * val.x, vi = wyz * val.y;
        float dx = gx0 - pos.x;
#pragma unroll
        for (int p = 0; p < NP; ++p) {
          if (fabsf(dx) < HALF) {
            const float w = window(dx, c);
            re[p] += w * vr;
            im[p] += w * vi;
          }
          dx += 1.0f;
        }
      }
    }
  }
  float2* out = grid + (long(k) * ny + j) * nx + bx * BIN;
#pragma unroll
  for (int p = 0; p < NP; ++p) out[p] = make_float2(re[p], im[p]);
}
