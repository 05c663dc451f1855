// Dynamic programming over shared memory:
//   nw_tile       Needleman-Wunsch global alignment, one 16x16 tile per block
//                 on the current anti-diagonal of tiles; the tile with its
//                 north/west border sits in shared memory and 16 threads sweep
//                 its anti-diagonals (upper-left triangle, then lower-right),
//                 each cell the maximum of the diagonal neighbour plus the
//                 substitution score and the two gap moves;
//   pathfinder_rows  the grid path-finder: each block advances `steps` rows at
//                 once over a 256-column strip, taking the minimum of the three
//                 cells above; the valid range shrinks by one column per row on
//                 each side (the pyramid), halo columns are recomputed by the
//                 neighbouring blocks.

#define NW_BS 16
#define PF_BLOCK 256

extern "C" __global__ void nw_tile(int* __restrict__ score, const int* __restrict__ ref, int cols, int penalty,
                                   int wave, int ntiles) {
  __shared__ int sc[NW_BS + 1][NW_BS + 1];
  __shared__ int rf[NW_BS][NW_BS];

  const int tx = threadIdx.x;
  const int first = wave < ntiles ? 0 : wave - ntiles + 1;
  const int tile_x = first + blockIdx.x;
  const int tile_y = wave - tile_x;
  const int r0 = tile_y * NW_BS;  // border row of the tile
  const int c0 = tile_x * NW_BS;  // border column of the tile

  if (tx == 0) sc[0][0] = score[r0 * cols + c0];
  sc[0][tx + 1] = score[r0 * cols + c0 + tx + 1];
  sc[tx + 1][0] = score[(r0 + tx + 1) * cols + c0];
  for (int i = 0; i < NW_BS; ++i) rf[i][tx] = ref[(r0 + 1 + i) * cols + c0 + 1 + tx];
  __syncthreads();

  // Upper-left triangle: anti-diagonal d has d+1 cells.
  for (int d = 0; d < NW_BS; ++d) {
    if (tx <= d) {
      const int i = tx + 1, j = d - tx + 1;
      const int diag = sc[i - 1][j - 1] + rf[i - 1][j - 1];
      const int up = sc[i - 1][j] - penalty;
      const int left = sc[i][j - 1] - penalty;
      sc[i][j] = max(diag, max(up, left));
    }
    __syncthreads();
  }
  // Lower-right triangle.
  for (int d = NW_BS - 2; d >= 0; --d) {
    if (tx <= d) {
      const int i = tx + NW_BS - d, j = NW_BS - tx;
      const int diag = sc[i - 1][j - 1] + rf[i - 1][j - 1];
      const int up = sc[i - 1][j] - penalty;
      const int left = sc[i][j - 1] - penalty;
      sc[i][j] = max(diag, max(up, left));
    }
    __syncthreads();
  }

  for (int i = 0; i < NW_BS; ++i) score[(r0 + 1 + i) * cols + c0 + 1 + tx] = sc[i + 1][tx + 1];
}

extern "C" __global__ void pathfinder_rows(const int* __restrict__ wall, const int* __restrict__ src,
                                           int* __restrict__ dst, int cols, int start_row, int steps, int border) {
  __shared__ int prev[PF_BLOCK];
  __shared__ int cur[PF_BLOCK];

  const int tx = threadIdx.x;
  const int small_block = PF_BLOCK - 2 * steps;  // valid columns per block
  const int blk_x = small_block * blockIdx.x - border;
  const int x = blk_x + tx;

  // Valid range of this block inside the grid.
  const int valid_l = blk_x < 0 ? -blk_x : 0;
  const int valid_r = blk_x + PF_BLOCK - 1 > cols - 1 ? PF_BLOCK - 1 - (blk_x + PF_BLOCK - cols) : PF_BLOCK - 1;
  const int w = tx - 1 < valid_l ? valid_l : tx - 1;
  const int e = tx + 1 > valid_r ? valid_r : tx + 1;
  const bool in_grid = x >= 0 && x < cols;

  if (in_grid) prev[tx] = src[x];
  __syncthreads();

  bool computed = false;
  for (int i = 0; i < steps; ++i) {
    computed = false;
    if (tx >= i + 1 && tx <= PF_BLOCK - i - 2 && tx >= valid_l && tx <= valid_r) {
      computed = true;
      const int left = prev[w];
      const int up = prev[tx];
      const int right = prev[e];
      int shortest = min(left, up);
      shortest = min(shortest, right);
      cur[tx] = shortest + wall[(start_row + i) * cols + x];
    }
    __syncthreads();
    if (i == steps - 1) break;
    if (computed) prev[tx] = cur[tx];
    __syncthreads();
  }
  if (computed) dst[x] = cur[tx];
}
