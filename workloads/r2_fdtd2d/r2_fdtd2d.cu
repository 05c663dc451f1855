// FDTD-2D in the style of PolyBench/GPU's FDTD-2D (R2D2 suite): the electric
// fields ex, ey and the magnetic field hz on an nx x ny row-major grid, three
// kernels per time step t (the host launches them in this order):
//   step1: ey from hz (row 0 takes the source value fict[t])
//   step2: ex from hz
//   step3: hz from ex and ey
// 2-D grids: x along the columns j, y along the rows i.
extern "C" __global__ void r2_fdtd2d_step1(int nx, int ny, float* fict, float* ex, float* ey, float* hz, int t) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;

  if (i < nx && j < ny) {
    if (i == 0) {
      ey[i * ny + j] = fict[t];
    } else {
      ey[i * ny + j] = ey[i * ny + j] - 0.5f * (hz[i * ny + j] - hz[(i - 1) * ny + j]);
    }
  }
}

extern "C" __global__ void r2_fdtd2d_step2(int nx, int ny, float* ex, float* ey, float* hz) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;

  if (i < nx && j < ny && j > 0) {
    ex[i * ny + j] = ex[i * ny + j] - 0.5f * (hz[i * ny + j] - hz[i * ny + (j - 1)]);
  }
}

extern "C" __global__ void r2_fdtd2d_step3(int nx, int ny, float* ex, float* ey, float* hz) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;

  if (i < nx - 1 && j < ny - 1) {
    hz[i * ny + j] =
        hz[i * ny + j] - 0.7f * (ex[i * ny + (j + 1)] - ex[i * ny + j] + ey[(i + 1) * ny + j] - ey[i * ny + j]);
  }
}
