// Two-dimensional stencils over a shared-memory tile with a one-cell halo,
// the heat-equation / Jacobi shape of benchmark suites:
//   stencil5_halo  16x16 threads, 18x18 shared tile: the block loads its
//                  interior, edge threads also load the four halo strips
//                  (clamped at the grid border), then the 5-point update
//                  out = c * centre + cn * (north + south + east + west);
//   stencil9_halo  32x8 threads, a 34x10 tile including the four corner
//                  cells, each thread computes two rows (ty and ty+8 of a
//                  32x16 output tile), 9-point weights c0 (centre), c1
//                  (faces) and c2 (corners), with a time-step scaling and a
//                  source term.

#define S5_B 16
#define S9_BX 32
#define S9_BY 8
#define S9_ROWS 16

__device__ __forceinline__ int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

extern "C" __global__ void stencil5_halo(const float* __restrict__ in, float* __restrict__ out, int nx, int ny,
                                         float c, float cn) {
  __shared__ float t[S5_B + 2][S5_B + 2];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x = blockIdx.x * S5_B + tx;
  const int y = blockIdx.y * S5_B + ty;
  const int cx = clampi(x, 0, nx - 1), cy = clampi(y, 0, ny - 1);

  t[ty + 1][tx + 1] = in[cy * nx + cx];
  if (tx == 0) t[ty + 1][0] = in[cy * nx + clampi(x - 1, 0, nx - 1)];
  if (tx == S5_B - 1) t[ty + 1][S5_B + 1] = in[cy * nx + clampi(x + 1, 0, nx - 1)];
  if (ty == 0) t[0][tx + 1] = in[clampi(y - 1, 0, ny - 1) * nx + cx];
  if (ty == S5_B - 1) t[S5_B + 1][tx + 1] = in[clampi(y + 1, 0, ny - 1) * nx + cx];
  __syncthreads();

  if (x < nx && y < ny) {
    const float centre = t[ty + 1][tx + 1];
    const float sum4 = t[ty][tx + 1] + t[ty + 2][tx + 1] + t[ty + 1][tx] + t[ty + 1][tx + 2];
    out[y * nx + x] = c * centre + cn * sum4;
  }
}

extern "C" __global__ void stencil9_halo(const float* __restrict__ in, const float* __restrict__ source,
                                         float* __restrict__ out, int nx, int ny, float c0, float c1, float c2,
                                         float dt) {
  __shared__ float t[S9_ROWS + 2][S9_BX + 2];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x0 = blockIdx.x * S9_BX;
  const int y0 = blockIdx.y * S9_ROWS;

  // Cooperative load of the (S9_ROWS+2) x (S9_BX+2) tile, halo included.
  for (int e = ty * S9_BX + tx; e < (S9_ROWS + 2) * (S9_BX + 2); e += S9_BX * S9_BY) {
    const int r = e / (S9_BX + 2), cc = e % (S9_BX + 2);
    const int gx = clampi(x0 + cc - 1, 0, nx - 1);
    const int gy = clampi(y0 + r - 1, 0, ny - 1);
    t[r][cc] = in[gy * nx + gx];
  }
  __syncthreads();

  const int x = x0 + tx;
#pragma unroll
  for (int h = 0; h < S9_ROWS / S9_BY; ++h) {
    const int ly = ty + h * S9_BY + 1;
    const int y = y0 + ly - 1;
    if (x < nx && y < ny) {
      const float centre = t[ly][tx + 1];
      const float faces = t[ly - 1][tx + 1] + t[ly + 1][tx + 1] + t[ly][tx] + t[ly][tx + 2];
      const float corners = t[ly - 1][tx] + t[ly - 1][tx + 2] + t[ly + 1][tx] + t[ly + 1][tx + 2];
      const float lap = c0 * centre + c1 * faces + c2 * corners;
      out[y * nx + x] = centre + dt * (lap + source[y * nx + x]);
    }
  }
}
