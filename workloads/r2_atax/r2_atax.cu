// ATAX in the style of PolyBench/GPU's ATAX (R2D2 suite): y = A^T (A x),
// A nx x ny row-major, in two 1-D kernels:
//   kernel1: tmp = A x    one thread per row i (walks the row)
//   kernel2: y = A^T tmp  one thread per column j (walks the column)
extern "C" __global__ void r2_atax_kernel1(int nx, int ny, float* A, float* x, float* tmp) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;

  if (i < nx) {
    tmp[i] = 0.0f;
    for (int j = 0; j < ny; j++) {
      tmp[i] += A[i * ny + j] * x[j];
    }
  }
}

extern "C" __global__ void r2_atax_kernel2(int nx, int ny, float* A, float* tmp, float* y) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;

  if (j < ny) {
    y[j] = 0.0f;
    for (int i = 0; i < nx; i++) {
      y[j] += A[i * ny + j] * tmp[i];
    }
  }
}
