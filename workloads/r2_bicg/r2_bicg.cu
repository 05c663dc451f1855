// BiCG's two products in the style of PolyBench/GPU's BICG (R2D2 suite),
// A nx x ny row-major, in two 1-D kernels:
//   kernel1: s = A^T r   one thread per column j (walks the column)
//   kernel2: q = A p     one thread per row i (walks the row)
extern "C" __global__ void r2_bicg_kernel1(int nx, int ny, float* A, float* r, float* s) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;

  if (j < ny) {
    s[j] = 0.0f;
    for (int i = 0; i < nx; i++) {
      s[j] += r[i] * A[i * ny + j];
    }
  }
}

extern "C" __global__ void r2_bicg_kernel2(int nx, int ny, float* A, float* p, float* q) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;

  if (i < nx) {
    q[i] = 0.0f;
    for (int j = 0; j < ny; j++) {
      q[i] += A[i * ny + j] * p[j];
    }
  }
}
