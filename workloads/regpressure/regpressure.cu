// Register-tiled SGEMM, C = A * B (row-major), the textbook way to make a
// kernel register-limited: each thread of a 16x16 block accumulates an 8x16
// tile of C, so 128 accumulators plus the 8 + 16 operands of each k step
// are live in the inner loop (RegDem's case: occupancy is set by the
// register count, not by threads or shared memory).
//
// sgemm_regtile lets ptxas use what it needs; sgemm_regtile_2blocks asks for
// two resident blocks per SM (__launch_bounds__(256, 2): at most 128
// registers per thread), which forces spills to local memory -- the
// --maxrregcount-style alternative RegDem compares against.
//
// M must be a multiple of 128, N of 256 and K of 8 (the driver checks).

#define TX 16       // threads per block in x (columns)
#define TY 16       // threads per block in y (rows)
#define TM 8        // rows of C per thread
#define TN 16       // columns of C per thread
#define BM (TY * TM)  // 128 rows of C per block
#define BN (TX * TN)  // 256 columns of C per block
#define BK 8

// Thread (tx, ty) owns rows ty + TY*i and columns tx + TX*j of the block
// tile, so the shared-memory reads of a warp are broadcasts or hit distinct
// banks.
__device__ __forceinline__ void sgemm_body(const float* __restrict__ a,
                                           const float* __restrict__ b, float* __restrict__ c,
                                           int m, int n, int k) {
  __shared__ float as[BK][BM];
  __shared__ float bs[BK][BN];
  int tx = threadIdx.x, ty = threadIdx.y;
  int tid = ty * TX + tx;
  int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;

  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

  for (int k0 = 0; k0 < k; k0 += BK) {
    // A tile (BM x BK, 4 per thread), stored transposed; B tile (BK x BN, 8 per thread).
#pragma unroll
    for (int r = 0; r < BM * BK / (TX * TY); ++r) {
      int e = tid + r * TX * TY;
      as[e % BK][e / BK] = a[(size_t)(row0 + e / BK) * k + k0 + e % BK];
    }
#pragma unroll
    for (int r = 0; r < BK * BN / (TX * TY); ++r) {
      int e = tid + r * TX * TY;
      bs[e / BN][e % BN] = b[(size_t)(k0 + e / BN) * n + col0 + e % BN];
    }
    __syncthreads();

#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      float ar[TM], br[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) ar[i] = as[kk][ty + TY * i];
#pragma unroll
      for (int j = 0; j < TN; ++j) br[j] = bs[kk][tx + TX * j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(ar[i], br[j], acc[i][j]);
    }
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j)
      c[(size_t)(row0 + ty + TY * i) * n + col0 + tx + TX * j] = acc[i][j];
}

extern "C" __global__ void __launch_bounds__(TX * TY)
    sgemm_regtile(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                  int m, int n, int k) {
  sgemm_body(a, b, c, m, n, k);
}

extern "C" __global__ void __launch_bounds__(TX * TY, 2)
    sgemm_regtile_2blocks(const float* __restrict__ a, const float* __restrict__ b,
                          float* __restrict__ c, int m, int n, int k) {
  sgemm_body(a, b, c, m, n, k);
}
