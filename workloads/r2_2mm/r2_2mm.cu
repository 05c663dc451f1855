// Two matrix products in the style of PolyBench/GPU's 2MM (R2D2 suite):
//   tmp = alpha * A * B           (ni x nj; A: ni x nk, B: nk x nj)
//   D   = beta * D + tmp * C      (ni x nl; C: nj x nl)
// Row-major arrays, one thread per output element, the sum accumulated in
// the output element itself as the original does. 2-D grids: x along the
// output's columns, y along its rows.
extern "C" __global__ void r2_2mm_kernel1(int ni, int nj, int nk, float alpha, float* A, float* B, float* tmp) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;

  if (i < ni && j < nj) {
    tmp[i * nj + j] = 0.0f;
    for (int k = 0; k < nk; k++) {
      tmp[i * nj + j] += alpha * A[i * nk + k] * B[k * nj + j];
    }
  }
}

extern "C" __global__ void r2_2mm_kernel2(int ni, int nl, int nj, float beta, float* tmp, float* C, float* D) {
  int l = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;

  if (i < ni && l < nl) {
    D[i * nl + l] *= beta;
    for (int j = 0; j < nj; j++) {
      D[i * nl + l] += tmp[i * nj + j] * C[j * nl + l];
    }
  }
}
