// Two-point correlation of 7-dimensional points, modelled on the
// correlation kernel of the RegDem paper's suite (pc, Table 1: 256 threads
// per block, about 2 KB of static shared memory). Each thread owns one
// query point and counts, in four bins of squared radius, the points of a
// reference set within each, walking the set tile by tile through shared
// memory (72 points of 7 coordinates: 2016 bytes).
#define BLOCK 256
#define DIMS 7
#define TILE 72

extern "C" __global__ void __launch_bounds__(BLOCK)
corr_pairs(const float* q, int n, const float* ref, int m, float r0, float r1, float r2, float r3,
           unsigned* counts) {
  __shared__ float tile[TILE * DIMS];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float p[DIMS];
#pragma unroll
  for (int d = 0; d < DIMS; ++d) p[d] = i < n ? q[d * n + i] : 0.0f;
  unsigned c0 = 0, c1 = 0, c2 = 0, c3 = 0;
  for (int base = 0; base < m; base += TILE) {
    __syncthreads();
    for (int k = threadIdx.x; k < TILE * DIMS; k += blockDim.x) {
      const int j = base + k % TILE, d = k / TILE;
      tile[k] = j < m ? ref[d * m + j] : 0.0f;
    }
    __syncthreads();
    const int len = min(TILE, m - base);
    for (int j = 0; j < len; ++j) {
      float s = 0.0f;
#pragma unroll
      for (int d = 0; d < DIMS; ++d) {
        const float t = p[d] - tile[d * TILE + j];
        s += t * t;
      }
      c0 += s <= r0;
      c1 += s <= r1;
      c2 += s <= r2;
      c3 += s <= r3;
    }
  }
  if (i < n) {
    counts[i] = c0;
    counts[i + n] = c1;
    counts[i + 2 * n] = c2;
    counts[i + 3 * n] = c3;
  }
}
