// GESUMMV in the style of PolyBench/GPU's GESUMMV (R2D2 suite):
//   y = alpha * A x + beta * B x   (A, B: n x n row-major)
// One 1-D kernel, one thread per row i, which walks row i of A and of B.
extern "C" __global__ void r2_gesummv(int n, float alpha, float beta, float* A, float* B, float* tmp, float* x,
                                      float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;

  if (i < n) {
    tmp[i] = 0.0f;
    y[i] = 0.0f;
    for (int j = 0; j < n; j++) {
      tmp[i] += A[i * n + j] * x[j];
      y[i] += B[i * n + j] * x[j];
    }
    y[i] = alpha * tmp[i] + beta * y[i];
  }
}
