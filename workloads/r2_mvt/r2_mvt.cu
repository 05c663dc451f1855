// MVT in the style of PolyBench/GPU's MVT (R2D2 suite), A n x n row-major,
// two 1-D kernels, one thread per element of the result:
//   kernel1: x1 += A y1     (thread i walks row i)
//   kernel2: x2 += A^T y2   (thread i walks column i)
extern "C" __global__ void r2_mvt_kernel1(int n, float* a, float* x1, float* y1) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;

  if (i < n) {
    for (int j = 0; j < n; j++) {
      x1[i] += a[i * n + j] * y1[j];
    }
  }
}

extern "C" __global__ void r2_mvt_kernel2(int n, float* a, float* x2, float* y2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;

  if (i < n) {
    for (int j = 0; j < n; j++) {
      x2[i] += a[j * n + i] * y2[j];
    }
  }
}
