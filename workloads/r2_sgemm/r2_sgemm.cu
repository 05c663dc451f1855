// Single-precision GEMM after the Parboil sgemm benchmark's register-tiled
// kernel (mysgemmNT): C = alpha * A * B^T + beta * C, every matrix in
// column-major order (A is m x k with leading dimension lda, B is n x k with
// ldb, C is m x n with ldc).
//
// A block of 16 x 8 = 128 threads computes a 128 x 16 tile of C: thread
// (tx, ty) owns row m = blockIdx.x * 128 + ty * 16 + tx and the tile's 16
// columns, kept in 16 registers. The k dimension is walked in steps of 8:
// the block stages the 8 x 16 slice of B^T it needs in shared memory (one
// element per thread), then each thread streams its 8 elements of A's row
// from global memory and updates its 16 partial sums from the broadcast
// shared-memory row.
#define TILE_N 16                        // columns of C per block (= blockDim.x)
#define TILE_TB_HEIGHT 8                 // k step (= blockDim.y)
#define TILE_M (TILE_N * TILE_TB_HEIGHT)  // rows of C per block (= threads per block)

extern "C" __global__ void __launch_bounds__(128)
    r2_sgemm_nt(const float* __restrict__ A, int lda, const float* __restrict__ B, int ldb, float* C, int ldc, int k,
                float alpha, float beta) {
  float c[TILE_N];
#pragma unroll
  for (int i = 0; i < TILE_N; ++i) c[i] = 0.0f;

  const int mid = threadIdx.y * blockDim.x + threadIdx.x;  // the thread's place in the block
  const int m = blockIdx.x * TILE_M + mid;                 // its row of C
  const int n = blockIdx.y * TILE_N + threadIdx.x;         // the column of B^T it stages

  __shared__ float b_s[TILE_TB_HEIGHT][TILE_N];
  for (int i = 0; i < k; i += TILE_TB_HEIGHT) {
    b_s[threadIdx.y][threadIdx.x] = B[n + (i + threadIdx.y) * ldb];
    __syncthreads();
#pragma unroll
    for (int j = 0; j < TILE_TB_HEIGHT; ++j) {
      const float a = A[m + (i + j) * lda];
#pragma unroll
      for (int kk = 0; kk < TILE_N; ++kk) c[kk] += a * b_s[j][kk];
    }
    __syncthreads();
  }

  const int t = ldc * blockIdx.y * TILE_N + m;
#pragma unroll
  for (int i = 0; i < TILE_N; ++i) C[t + i * ldc] = C[t + i * ldc] * beta + alpha * c[i];
}
