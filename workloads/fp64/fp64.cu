// Double-precision kernels: DGEMV (y = alpha*A*x + beta*y, A column-major,
// one thread per row so consecutive threads read consecutive rows of a
// column) and Horner evaluation of a polynomial whose coefficients live in
// __constant__ memory. Both use fma() explicitly, so the result is fixed by
// IEEE-754 and the order of operations written here.

#define DGEMV_TILE 128  // x values staged in shared memory per step
#define POLY_MAX_DEGREE 16

__constant__ double poly_coeffs[POLY_MAX_DEGREE + 1];  // c[0] + c[1] x + ... + c[d] x^d

extern "C" __global__ void dgemv_n(int m, int n, double alpha, const double* __restrict__ a,
                                   int lda, const double* __restrict__ x, double beta,
                                   double* __restrict__ y) {
  __shared__ double xs[DGEMV_TILE];
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  double acc = 0.0;
  for (int base = 0; base < n; base += DGEMV_TILE) {
    int cols = min(DGEMV_TILE, n - base);
    for (int j = threadIdx.x; j < cols; j += blockDim.x) xs[j] = x[base + j];
    __syncthreads();
    if (row < m) {
      const double* col = a + (size_t)base * lda + row;
      for (int j = 0; j < cols; ++j) acc = fma(col[(size_t)j * lda], xs[j], acc);
    }
    __syncthreads();
  }
  if (row < m) y[row] = fma(alpha, acc, beta * y[row]);
}

extern "C" __global__ void dpoly_horner(const double* __restrict__ x, double* __restrict__ y,
                                        int n, int degree) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    double xi = x[i];
    double p = poly_coeffs[degree];
    for (int k = degree - 1; k >= 0; --k) p = fma(p, xi, poly_coeffs[k]);
    y[i] = p;
  }
}
