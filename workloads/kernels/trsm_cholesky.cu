// Triangular solve and Cholesky pieces of a blocked dense solver:
//   trsm_lower_blocked  L * X = B for many right-hand sides, one thread per
//                       column of B; the 16 unknowns of the current row block
//                       stay in registers while the already-solved blocks are
//                       subtracted (L tiles staged in shared memory), then the
//                       16x16 diagonal tile is solved by unrolled forward
//                       substitution;
//   chol_diag_tile      one block factors a 32x32 diagonal tile in shared
//                       memory (column by column: sqrt of the pivot, scale the
//                       column, update the trailing lower triangle);
//   chol_trailing_update  A22 -= L21 * L21^T on 16x16 tiles of the lower
//                       triangle (tiles above the diagonal return at once).
// Row-major storage.

#define TS_BS 16
#define CH_BS 32

extern "C" __global__ void trsm_lower_blocked(const float* __restrict__ L, float* __restrict__ B, int n, int nrhs,
                                              int ldl, int ldb) {
  __shared__ float Ls[TS_BS][TS_BS + 1];
  const int tx = threadIdx.x;  // 32 threads
  const int col = blockIdx.x * blockDim.x + tx;
  const bool active = col < nrhs;

  for (int ib = 0; ib < n; ib += TS_BS) {
    float x[TS_BS];
#pragma unroll
    for (int r = 0; r < TS_BS; ++r) x[r] = active ? B[(ib + r) * ldb + col] : 0.0f;

    // Subtract the contribution of the solved blocks above.
    for (int kb = 0; kb < ib; kb += TS_BS) {
      for (int e = tx; e < TS_BS * TS_BS; e += blockDim.x) Ls[e / TS_BS][e % TS_BS] = L[(ib + e / TS_BS) * ldl + kb + e % TS_BS];
      __syncthreads();
#pragma unroll
      for (int k = 0; k < TS_BS; ++k) {
        const float xk = active ? B[(kb + k) * ldb + col] : 0.0f;
#pragma unroll
        for (int r = 0; r < TS_BS; ++r) x[r] -= Ls[r][k] * xk;
      }
      __syncthreads();
    }

    // Diagonal block: forward substitution with the unknowns in registers.
    for (int e = tx; e < TS_BS * TS_BS; e += blockDim.x) Ls[e / TS_BS][e % TS_BS] = L[(ib + e / TS_BS) * ldl + ib + e % TS_BS];
    __syncthreads();
#pragma unroll
    for (int r = 0; r < TS_BS; ++r) {
#pragma unroll
      for (int k = 0; k < r; ++k) x[r] -= Ls[r][k] * x[k];
      x[r] /= Ls[r][r];
    }
    __syncthreads();

    if (active) {
#pragma unroll
      for (int r = 0; r < TS_BS; ++r) B[(ib + r) * ldb + col] = x[r];
    }
  }
}

extern "C" __global__ void chol_diag_tile(float* __restrict__ A, int lda, int offset) {
  __shared__ float t[CH_BS][CH_BS + 1];
  const int tx = threadIdx.x;  // one thread per row of the tile
  float* base = A + offset * lda + offset;

  for (int c = 0; c < CH_BS; ++c) t[tx][c] = base[tx * lda + c];
  __syncthreads();

  for (int k = 0; k < CH_BS; ++k) {
    if (tx == k) t[k][k] = sqrtf(t[k][k]);
    __syncthreads();
    if (tx > k) t[tx][k] = t[tx][k] / t[k][k];
    __syncthreads();
    if (tx > k) {
      const float lik = t[tx][k];
      for (int j = k + 1; j <= tx; ++j) t[tx][j] -= lik * t[j][k];
    }
    __syncthreads();
  }

  // Lower triangle back, zeros above the diagonal.
  for (int c = 0; c < CH_BS; ++c) base[tx * lda + c] = c <= tx ? t[tx][c] : 0.0f;
}

extern "C" __global__ void chol_trailing_update(float* __restrict__ A, int lda, int offset, int panel) {
  // Tile (by, bx) of the trailing matrix that starts at row/column offset+panel.
  if (blockIdx.x > blockIdx.y) return;
  __shared__ float li[TS_BS][TS_BS + 1];
  __shared__ float lj[TS_BS][TS_BS + 1];

  const int tx = threadIdx.x, ty = threadIdx.y;
  const int start = offset + panel;
  const int row = start + blockIdx.y * TS_BS + ty;
  const int col = start + blockIdx.x * TS_BS + tx;
  const int jrow = start + blockIdx.x * TS_BS + ty;

  float sum = 0.0f;
  for (int k = 0; k < panel; k += TS_BS) {
    li[ty][tx] = A[row * lda + offset + k + tx];
    lj[ty][tx] = A[jrow * lda + offset + k + tx];
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < TS_BS; ++kk) sum += li[ty][kk] * lj[tx][kk];
    __syncthreads();
  }
  if (col <= row) A[row * lda + col] -= sum;
}
