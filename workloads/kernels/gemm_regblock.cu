// Tiled single-precision matrix multiply with register blocking, the way
// tuned benchmark GEMMs are written:
//   sgemm_reg4x4  a 16x16 block computes a 64x64 tile of C; every thread keeps
//                 a 4x4 block of C in registers and, per step of the 16-deep
//                 shared k-tile, reads 4 values of A and 4 of B (outer product);
//   sgemm_col8    a 16x8 block computes a 64x16 tile; every thread keeps 8
//                 results of one column (rows ty, ty+8, ...), B's value is
//                 reused from a register across the 8 rows.
// Row-major, C = alpha * A * B + beta * C; M, N, K multiples of the tiles.

#define TK 16

extern "C" __global__ void sgemm_reg4x4(const float* __restrict__ A, const float* __restrict__ B,
                                        float* __restrict__ C, int M, int N, int K, float alpha, float beta) {
  __shared__ float As[TK][64];  // transposed: As[k][row]
  __shared__ float Bs[TK][64];

  const int tx = threadIdx.x, ty = threadIdx.y;
  const int tid = ty * 16 + tx;
  const int row0 = blockIdx.y * 64;
  const int col0 = blockIdx.x * 64;

  float acc[4][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) acc[i][j] = 0.0f;

  for (int kt = 0; kt < K; kt += TK) {
    // 256 threads load the 64x16 A tile and the 16x64 B tile, 4 values each.
#pragma unroll
    for (int l = 0; l < 4; ++l) {
      const int e = tid + l * 256;
      const int ar = e / TK, ak = e % TK;
      As[ak][ar] = A[(row0 + ar) * K + kt + ak];
      const int bk = e / 64, bc = e % 64;
      Bs[bk][bc] = B[(kt + bk) * N + col0 + bc];
    }
    __syncthreads();

#pragma unroll
    for (int k = 0; k < TK; ++k) {
      float a[4], b[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) a[i] = As[k][ty * 4 + i];
#pragma unroll
      for (int j = 0; j < 4; ++j) b[j] = Bs[k][tx * 4 + j];
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int r = row0 + ty * 4 + i;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int c = col0 + tx * 4 + j;
      C[r * N + c] = alpha * acc[i][j] + beta * C[r * N + c];
    }
  }
}

extern "C" __global__ void sgemm_col8(const float* __restrict__ A, const float* __restrict__ B,
                                      float* __restrict__ C, int M, int N, int K, float alpha, float beta) {
  __shared__ float As[64][TK + 1];  // padded against bank conflicts
  __shared__ float Bs[TK][16];

  const int tx = threadIdx.x;  // 0..15: column
  const int ty = threadIdx.y;  // 0..7
  const int tid = ty * 16 + tx;
  const int row0 = blockIdx.y * 64;
  const int col = blockIdx.x * 16 + tx;

  float acc[8];
#pragma unroll
  for (int i = 0; i < 8; ++i) acc[i] = 0.0f;

  for (int kt = 0; kt < K; kt += TK) {
#pragma unroll
    for (int l = 0; l < 8; ++l) {
      const int e = tid + l * 128;
      As[e / TK][e % TK] = A[(row0 + e / TK) * K + kt + e % TK];
    }
#pragma unroll
    for (int l = 0; l < 2; ++l) {
      const int e = tid + l * 128;
      Bs[e / 16][e % 16] = B[(kt + e / 16) * N + blockIdx.x * 16 + e % 16];
    }
    __syncthreads();

#pragma unroll
    for (int k = 0; k < TK; ++k) {
      const float b = Bs[k][tx];
#pragma unroll
      for (int i = 0; i < 8; ++i) acc[i] += As[ty + 8 * i][k] * b;
    }
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int r = row0 + ty + 8 * i;
    C[r * N + col] = alpha * acc[i] + beta * C[r * N + col];
  }
}
