// C = alpha * A * B + beta * C, row-major, A is M x K, B is K x N. Each
// 16 x 16 block computes one 16 x 16 tile of C, staging tiles of A and B
// through shared memory (CUDA C Programming Guide, "Shared Memory" matrix
// multiplication). Sizes need not be multiples of the tile: out-of-range tile
// elements load as zero.
#define TILE 16

extern "C" __global__ void sgemm_tiled(int M, int N, int K, float alpha, const float* __restrict__ A,
                                       const float* __restrict__ B, float beta, float* __restrict__ C) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];

  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty;
  int col = blockIdx.x * TILE + tx;

  float acc = 0.0f;
  for (int t = 0; t < K; t += TILE) {
    As[ty][tx] = (row < M && t + tx < K) ? A[row * K + t + tx] : 0.0f;
    Bs[ty][tx] = (t + ty < K && col < N) ? B[(t + ty) * N + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; ++k) {
      acc += As[ty][k] * Bs[k][tx];
    }
    __syncthreads();
  }
  if (row < M && col < N) {
    C[row * N + col] = alpha * acc + beta * C[row * N + col];
  }
}
