// GEMM in the style of PolyBench/GPU's GEMM (R2D2 suite):
//   C = alpha * A * B + beta * C   (A: ni x nk, B: nk x nj, C: ni x nj)
// Row-major arrays, one thread per element of C, which accumulates the sum
// in place as the original does. 2-D grid: x along the columns j, y along
// the rows i.
extern "C" __global__ void r2_gemm(int ni, int nj, int nk, float alpha, float beta, float* A, float* B, float* C) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;

  if (i < ni && j < nj) {
    C[i * nj + j] *= beta;
    for (int k = 0; k < nk; k++) {
      C[i * nj + j] += alpha * A[i * nk + k] * B[k * nj + j];
    }
  }
}
