// Blocked right-looking LU decomposition without pivoting, the three-kernel
// shape used by GPU benchmark suites: for every step along the diagonal the
// host would launch
//   lu_diagonal   one block factors the 16x16 diagonal tile in shared memory,
//   lu_perimeter  one block per tile of the row and column strips: forward
//                 substitution against the unit-lower factor (row strip) and
//                 against the upper factor (column strip),
//   lu_internal   one 16x16 block per trailing tile: A -= L_col * U_row with
//                 both operand tiles staged in shared memory and an unrolled
//                 16-term inner product.
// The matrix is row-major, dim x dim, dim a multiple of 16; `offset` is the
// row/column where the current diagonal tile starts.

#define LU_BS 16

extern "C" __global__ void lu_diagonal(float* __restrict__ a, int dim, int offset) {
  __shared__ float tile[LU_BS][LU_BS];
  const int tx = threadIdx.x;  // one thread per column, LU_BS threads
  const int base = offset * dim + offset;

  for (int r = 0; r < LU_BS; ++r) tile[r][tx] = a[base + r * dim + tx];
  __syncthreads();

  for (int k = 0; k < LU_BS - 1; ++k) {
    // Column k below the pivot becomes the multipliers (thread tx owns row tx).
    if (tx > k) tile[tx][k] = tile[tx][k] / tile[k][k];
    __syncthreads();
    // Rank-1 update of the trailing sub-tile, one row per thread.
    if (tx > k) {
      const float l = tile[tx][k];
      for (int j = k + 1; j < LU_BS; ++j) tile[tx][j] -= l * tile[k][j];
    }
    __syncthreads();
  }

  // Row 0 is unchanged by the factorisation.
  for (int r = 1; r < LU_BS; ++r) a[base + r * dim + tx] = tile[r][tx];
}

extern "C" __global__ void lu_perimeter(float* __restrict__ a, int dim, int offset) {
  __shared__ float diag[LU_BS][LU_BS];
  __shared__ float rowt[LU_BS][LU_BS];  // tile to the right of the diagonal tile
  __shared__ float colt[LU_BS][LU_BS];  // tile below the diagonal tile

  const int tx = threadIdx.x;  // 2 * LU_BS threads
  const int c = tx & (LU_BS - 1);
  const int half = tx / LU_BS;
  const int blk = blockIdx.x + 1;
  const int dbase = offset * dim + offset;
  const int rbase = dbase + blk * LU_BS;
  const int cbase = dbase + blk * LU_BS * dim;

  // Each half of the block loads half of the rows of all three tiles.
  for (int r = half * (LU_BS / 2); r < (half + 1) * (LU_BS / 2); ++r) {
    diag[r][c] = a[dbase + r * dim + c];
    rowt[r][c] = a[rbase + r * dim + c];
    colt[r][c] = a[cbase + r * dim + c];
  }
  __syncthreads();

  if (half == 0) {
    // Row strip: solve L * X = A for column c of the tile, L unit lower.
    for (int i = 1; i < LU_BS; ++i) {
      float s = rowt[i][c];
#pragma unroll 4
      for (int j = 0; j < i; ++j) s -= diag[i][j] * rowt[j][c];
      rowt[i][c] = s;
    }
  } else {
    // Column strip: solve X * U = A for row c of the tile, U upper.
    for (int j = 0; j < LU_BS; ++j) {
      float s = colt[c][j];
#pragma unroll 4
      for (int k = 0; k < j; ++k) s -= colt[c][k] * diag[k][j];
      colt[c][j] = s / diag[j][j];
    }
  }
  __syncthreads();

  for (int r = half * (LU_BS / 2); r < (half + 1) * (LU_BS / 2); ++r) {
    a[rbase + r * dim + c] = rowt[r][c];
    a[cbase + r * dim + c] = colt[r][c];
  }
}

extern "C" __global__ void lu_internal(float* __restrict__ a, int dim, int offset) {
  __shared__ float lcol[LU_BS][LU_BS];
  __shared__ float urow[LU_BS][LU_BS];

  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int gr = offset + (blockIdx.y + 1) * LU_BS;  // first row of this tile
  const int gc = offset + (blockIdx.x + 1) * LU_BS;  // first column of this tile

  lcol[ty][tx] = a[(gr + ty) * dim + offset + tx];
  urow[ty][tx] = a[(offset + ty) * dim + gc + tx];
  __syncthreads();

  float sum = 0.0f;
#pragma unroll
  for (int k = 0; k < LU_BS; ++k) sum += lcol[ty][k] * urow[k][tx];
  a[(gr + ty) * dim + gc + tx] -= sum;
}
