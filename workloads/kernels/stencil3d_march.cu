// Three-dimensional stencils that march along z, the register-queue pattern
// of tuned 3-D finite-difference codes: a 2-D thread block covers an x-y
// tile, keeps the values in front of and behind the current plane in
// registers and the current plane (with its x-y halo) in shared memory.
//   stencil7_zmarch   7-point: registers hold z-1, z, z+1;
//   stencil25_zmarch  8th-order 25-point (radius 4 on each axis): registers
//                     hold four planes behind and four in front, the x-y halo
//                     is 4 cells wide, coefficients in constant memory.

#define SM_BX 32
#define SM_BY 8
#define R4 4

__constant__ float c_coef[R4 + 1];

extern "C" __global__ void stencil7_zmarch(const float* __restrict__ in, float* __restrict__ out, int nx, int ny,
                                           int nz, float c0, float c1) {
  __shared__ float plane[SM_BY + 2][SM_BX + 2];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x = blockIdx.x * SM_BX + tx;
  const int y = blockIdx.y * SM_BY + ty;
  const bool inside = x < nx && y < ny;
  const int stride = nx * ny;
  const int idx = y * nx + x;

  float below = 0.0f, cur = 0.0f, above = 0.0f;
  if (inside) {
    cur = in[idx];
    above = in[idx + stride];
  }

  for (int z = 1; z < nz - 1; ++z) {
    below = cur;
    cur = above;
    if (inside) above = in[idx + (z + 1) * stride];
    __syncthreads();  // the previous plane's readers are done
    plane[ty + 1][tx + 1] = cur;
    if (inside) {
      if (tx == 0 && x > 0) plane[ty + 1][0] = in[idx + z * stride - 1];
      if (tx == SM_BX - 1 && x < nx - 1) plane[ty + 1][SM_BX + 1] = in[idx + z * stride + 1];
      if (ty == 0 && y > 0) plane[0][tx + 1] = in[idx + z * stride - nx];
      if (ty == SM_BY - 1 && y < ny - 1) plane[SM_BY + 1][tx + 1] = in[idx + z * stride + nx];
    }
    __syncthreads();
    if (inside && x > 0 && y > 0 && x < nx - 1 && y < ny - 1) {
      const float sum6 = below + above + plane[ty + 1][tx] + plane[ty + 1][tx + 2] + plane[ty][tx + 1] +
                         plane[ty + 2][tx + 1];
      out[idx + z * stride] = c0 * cur + c1 * sum6;
    }
  }
}

extern "C" __global__ void stencil25_zmarch(const float* __restrict__ in, float* __restrict__ out, int nx, int ny,
                                            int nz) {
  __shared__ float plane[SM_BY + 2 * R4][SM_BX + 2 * R4];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x = blockIdx.x * SM_BX + tx + R4;  // interior only: the outer R4 cells are boundary
  const int y = blockIdx.y * SM_BY + ty + R4;
  const int stride = nx * ny;
  int idx = y * nx + x;
  const bool inside = x < nx - R4 && y < ny - R4;

  float behind[R4], infront[R4], cur;
  // Prime the queue: planes 0..3 behind, 4 current, 5..8 in front.
#pragma unroll
  for (int k = 0; k < R4; ++k) behind[k] = inside ? in[idx + (R4 - 1 - k) * stride] : 0.0f;
  cur = inside ? in[idx + R4 * stride] : 0.0f;
#pragma unroll
  for (int k = 0; k < R4; ++k) infront[k] = inside ? in[idx + (R4 + 1 + k) * stride] : 0.0f;
  idx += R4 * stride;

  for (int z = R4; z < nz - R4; ++z) {
    __syncthreads();
    // Halo strips of the current plane, 4 wide.
    if (inside) {
      if (ty < R4) {
        plane[ty][tx + R4] = in[idx - R4 * nx];
        plane[ty + SM_BY + R4][tx + R4] = in[idx + SM_BY * nx];
      }
      if (tx < R4) {
        plane[ty + R4][tx] = in[idx - R4];
        plane[ty + R4][tx + SM_BX + R4] = in[idx + SM_BX];
      }
    }
    plane[ty + R4][tx + R4] = cur;
    __syncthreads();

    if (inside) {
      float v = c_coef[0] * cur;
#pragma unroll
      for (int k = 1; k <= R4; ++k) {
        v += c_coef[k] * (infront[k - 1] + behind[k - 1] + plane[ty + R4 - k][tx + R4] + plane[ty + R4 + k][tx + R4] +
                          plane[ty + R4][tx + R4 - k] + plane[ty + R4][tx + R4 + k]);
      }
      out[idx] = v;
    }

    // Advance the queue by one plane.
#pragma unroll
    for (int k = R4 - 1; k > 0; --k) behind[k] = behind[k - 1];
    behind[0] = cur;
    cur = infront[0];
#pragma unroll
    for (int k = 0; k < R4 - 1; ++k) infront[k] = infront[k + 1];
    if (inside && z + R4 + 1 < nz) infront[R4 - 1] = in[idx + (R4 + 1) * stride];
    idx += stride;
  }
}
