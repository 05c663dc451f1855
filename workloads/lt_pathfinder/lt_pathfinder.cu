// Dynamic programming down the rows of a grid (LTRF suite,
// register-insensitive; after Rodinia's pathfinder): the cheapest path from
// the top row to each cell of the bottom row that moves one row down and at
// most one column sideways per step,
//   cost[r][c] = wall[r][c] + min(cost[r-1][c-1], cost[r-1][c], cost[r-1][c+1]),
// a column off the grid not counting. A launch advances `iters` rows with a
// pyramid in shared memory: a block of BLOCK threads loads BLOCK costs (a
// halo of `iters` columns on both sides), computes `iters` rows there, the
// valid range shrinking by one column per row on each side, and writes the
// inner BLOCK - 2 iters columns. The host ping-pongs the cost rows.
#define BLOCK 256

extern "C" __global__ void __launch_bounds__(BLOCK) lt_pathfinder(int iters, const int* __restrict__ wall,
                                                                  const int* __restrict__ src, int* __restrict__ dst,
                                                                  int cols, int first_row) {
  __shared__ int prev[BLOCK];
  __shared__ int cur[BLOCK];
  const int tx = threadIdx.x;
  const int tile_x = blockIdx.x * (BLOCK - 2 * iters) - iters;
  const int x = tile_x + tx;
  // The tile's columns inside the grid.
  const int valid0 = max(0, -tile_x), valid1 = min(BLOCK - 1, cols - 1 - tile_x);
  if (x >= 0 && x < cols) prev[tx] = src[x];
  __syncthreads();
  const int left = max(tx - 1, valid0), right = min(tx + 1, valid1);
  bool computed = false;
  for (int i = 0; i < iters; ++i) {
    computed = tx >= i + 1 && tx <= BLOCK - i - 2 && tx >= valid0 && tx <= valid1;
    if (computed) cur[tx] = wall[(first_row + i) * cols + x] + min(min(prev[left], prev[tx]), prev[right]);
    __syncthreads();
    if (i == iters - 1) break;
    if (computed) prev[tx] = cur[tx];
    __syncthreads();
  }
  if (computed) dst[x] = cur[tx];
}
