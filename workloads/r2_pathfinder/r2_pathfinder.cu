// Rodinia pathfinder (R2D2 suite): the cheapest path from the top row of a
// rows x cols grid of weights to each cell of the bottom row, moving down
// one row per step to the same column or a neighbouring one. Dynamic
// programming row by row, Rodinia's dynproc_kernel: 1-D blocks of 256
// threads, each holding a row segment in shared memory and taking
// `iteration` rows in it (a pyramid: the valid part shrinks by one cell on
// each side per row); the non-overlapping centre of 256 - 2 iteration cells
// is written back. The host launches it until every row is done, swapping
// the two result rows.
#define BLOCK_SIZE 256
#define HALO 1  // cells each side per row of the pyramid

#define IN_RANGE(x, min, max) ((x) >= (min) && (x) <= (max))
#define MIN(a, b) ((a) <= (b) ? (a) : (b))

extern "C" __global__ void r2_dynproc_kernel(int iteration, int* gpuWall, int* gpuSrc, int* gpuResults, int cols,
                                             int rows, int startStep, int border) {
  __shared__ int prev[BLOCK_SIZE];
  __shared__ int result[BLOCK_SIZE];

  int bx = blockIdx.x;
  int tx = threadIdx.x;

  // The non-overlapping small blocks cover the row.
  int small_block_cols = BLOCK_SIZE - iteration * HALO * 2;

  // The block's segment, around its small block.
  int blkX = small_block_cols * bx - border;
  int blkXmax = blkX + BLOCK_SIZE - 1;

  int xidx = blkX + tx;

  // The part of the segment inside the grid.
  int validXmin = (blkX < 0) ? -blkX : 0;
  int validXmax = (blkXmax > cols - 1) ? BLOCK_SIZE - 1 - (blkXmax - cols + 1) : BLOCK_SIZE - 1;

  int W = tx - 1;
  int E = tx + 1;

  W = (W < validXmin) ? validXmin : W;
  E = (E > validXmax) ? validXmax : E;

  bool isValid = IN_RANGE(tx, validXmin, validXmax);

  if (IN_RANGE(xidx, 0, cols - 1)) {
    prev[tx] = gpuSrc[xidx];
  }
  __syncthreads();
  bool computed = false;  // Rodinia leaves it unset when no row is computed
  for (int i = 0; i < iteration; i++) {
    computed = false;
    if (IN_RANGE(tx, i + 1, BLOCK_SIZE - i - 2) && isValid) {
      computed = true;
      int left = prev[W];
      int up = prev[tx];
      int right = prev[E];
      int shortest = MIN(left, up);
      shortest = MIN(shortest, right);
      int index = cols * (startStep + i) + xidx;
      result[tx] = shortest + gpuWall[index];
    }
    __syncthreads();
    if (i == iteration - 1) break;
    if (computed) prev[tx] = result[tx];
    __syncthreads();
  }

  // After the last row only the threads of the small block have computed.
  if (computed) {
    gpuResults[xidx] = result[tx];
  }
}
