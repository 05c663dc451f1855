// Hotspot thermal simulation (LTRF suite, register-sensitive; after
// Rodinia's hotspot): the temperature of a chip's grid of cells evolves by
// explicit steps of
//   T' = T + step/Cap * (P + (T_N + T_S - 2T) / Ry + (T_E + T_W - 2T) / Rx
//                      + (T_amb - T) / Rz),
// a cell at the chip's edge using itself for its missing neighbours.
//
// The pyramid: a block loads a tile of temperatures and powers into shared
// memory, with a halo of `iters` cells on every side, and takes `iters` steps
// there, the ring of valid cells shrinking by one per step; only the inner
// (tile - 2 iters) cells are written back, so neighbouring tiles overlap by
// the halo and a launch advances the grid by `iters` steps. The host
// launches total / iters times, ping-ponging the temperature grids.
//
// A block is 16 x 16 threads over a 16-column x (16 * ROWS)-row tile: each
// thread computes ROWS cells of a column and keeps, for each across the
// steps, its temperature and power in registers (shared memory holds the
// temperatures for the neighbours to read), its neighbours' clamped rows
// and whether it is computed.
#define BS 16
#define ROWS 4
#define TH (BS * ROWS)

__device__ __forceinline__ bool inside(int v, int lo, int hi) { return v >= lo && v <= hi; }

extern "C" __global__ void __launch_bounds__(256) lt_hotspot(int iters, const float* __restrict__ power,
                                                             const float* __restrict__ temp_src,
                                                             float* __restrict__ temp_dst, int cols, int rows,
                                                             float step_div_cap, float rx_1, float ry_1, float rz_1,
                                                             float amb) {
  __shared__ float t_in[TH][BS];
  __shared__ float p_in[TH][BS];

  const int tx = threadIdx.x, ty0 = threadIdx.y;
  // The tile's origin: the computed (inner) region of block (bx, by) starts
  // at (bx * (BS - 2 iters), by * (TH - 2 iters)); the tile starts `iters`
  // cells earlier.
  const int inner_cols = BS - 2 * iters, inner_rows = TH - 2 * iters;
  const int tile_x = blockIdx.x * inner_cols - iters;
  const int tile_y = blockIdx.y * inner_rows - iters;
  const int gx = tile_x + tx;

  // The tile's cells inside the chip: [valid_x0, valid_x1] x [valid_y0, valid_y1].
  const int valid_x0 = max(0, -tile_x), valid_x1 = min(BS - 1, cols - 1 - tile_x);
  const int valid_y0 = max(0, -tile_y), valid_y1 = min(TH - 1, rows - 1 - tile_y);

#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    const int ty = ty0 + r * BS, gy = tile_y + ty;
    if (inside(gx, 0, cols - 1) && inside(gy, 0, rows - 1)) {
      t_in[ty][tx] = temp_src[gy * cols + gx];
      p_in[ty][tx] = power[gy * cols + gx];
    }
  }
  __syncthreads();

  const int w = max(tx - 1, valid_x0), e = min(tx + 1, valid_x1);
  float t[ROWS], p[ROWS];
  int n[ROWS], s[ROWS];
  bool computed[ROWS];
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    const int ty = ty0 + r * BS;
    t[r] = t_in[ty][tx];
    p[r] = p_in[ty][tx];
    n[r] = max(ty - 1, valid_y0);
    s[r] = min(ty + 1, valid_y1);
    computed[r] = false;
  }
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      const int ty = ty0 + r * BS;
      computed[r] = inside(tx, i + 1, BS - i - 2) && inside(ty, i + 1, TH - i - 2) && inside(tx, valid_x0, valid_x1) &&
                    inside(ty, valid_y0, valid_y1);
      if (computed[r]) {
        t[r] += step_div_cap * (p[r] + (t_in[s[r]][tx] + t_in[n[r]][tx] - 2.0f * t[r]) * ry_1 +
                                (t_in[ty][e] + t_in[ty][w] - 2.0f * t[r]) * rx_1 + (amb - t[r]) * rz_1);
      }
    }
    if (i == iters - 1) break;
    __syncthreads();  // every neighbour read the old temperatures
#pragma unroll
    for (int r = 0; r < ROWS; ++r)
      if (computed[r]) t_in[ty0 + r * BS][tx] = t[r];
    __syncthreads();
  }
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    const int ty = ty0 + r * BS;
    if (computed[r]) temp_dst[(tile_y + ty) * cols + gx] = t[r];
  }
}
