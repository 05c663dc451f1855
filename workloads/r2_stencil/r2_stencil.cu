// 7-point 3-D stencil after the Parboil stencil benchmark (a Jacobi step of
// the heat equation): every interior point of the nx x ny x nz grid becomes
//   Anext = c1 * (sum of its six neighbours) - c0 * A0
// and the boundary keeps its values (the host initialises both grids).
//
// As in Parboil's block2D kernel, a 2-D block of threads covers a 32 x 4
// tile of the (x, y) plane and marches along z: each thread keeps the point
// below, its own and the one above in registers, the block stages the
// current plane's tile in shared memory, and the side neighbours come from
// shared memory or, at the tile's edge, from global memory. The index into
// the grid advances by one plane, nx * ny, per step.
#define BX 32
#define BY 4

extern "C" __global__ void __launch_bounds__(BX * BY)
    r2_stencil(float c0, float c1, const float* __restrict__ A0, float* __restrict__ Anext, int nx, int ny, int nz) {
  __shared__ float sh[BY][BX];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int i = blockIdx.x * BX + tx;
  const int j = blockIdx.y * BY + ty;
  const bool inside = i < nx && j < ny;
  const bool interior = i > 0 && i < nx - 1 && j > 0 && j < ny - 1;
  const int plane = nx * ny;

  int at = i + j * nx + plane;  // the point at z = 1
  float below = 0.0f, cur = 0.0f;
  if (inside) {
    below = A0[at - plane];
    cur = A0[at];
  }
  for (int k = 1; k < nz - 1; ++k, at += plane) {
    const float above = inside ? A0[at + plane] : 0.0f;
    sh[ty][tx] = cur;
    __syncthreads();
    if (interior) {
      const float west = tx > 0 ? sh[ty][tx - 1] : A0[at - 1];
      const float east = tx < BX - 1 ? sh[ty][tx + 1] : A0[at + 1];
      const float south = ty > 0 ? sh[ty - 1][tx] : A0[at - nx];
      const float north = ty < BY - 1 ? sh[ty + 1][tx] : A0[at + nx];
      Anext[at] = c1 * (below + above + west + east + south + north) - c0 * cur;
    }
    __syncthreads();  // the tile is overwritten by the next plane
    below = cur;
    cur = above;
  }
}
