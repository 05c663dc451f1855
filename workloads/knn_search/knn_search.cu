// k-nearest-neighbour search in 7 dimensions, modelled on the kd-tree
// kernel of the RegDem paper's suite (nn, Table 1: 192 threads per block,
// about 1.5 KB of static shared memory). Each thread owns one query point
// and keeps its K = 4 nearest reference points (distances and indices, in
// order, in registers), walking the reference set tile by tile through
// shared memory (54 points of 7 coordinates: 1512 bytes). The paper's
// kernel walks a tree; this one scans, so that the simulated input stays
// affordable.
#define BLOCK 192
#define DIMS 7
#define TILE 54
#define K 4

extern "C" __global__ void __launch_bounds__(BLOCK)
knn_search(const float* q, int n, const float* ref, int m, int* nearest, float* dist) {
  __shared__ float tile[TILE * DIMS];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float p[DIMS];
#pragma unroll
  for (int d = 0; d < DIMS; ++d) p[d] = i < n ? q[d * n + i] : 0.0f;
  float bd[K];
  int bj[K];
#pragma unroll
  for (int k = 0; k < K; ++k) bd[k] = 3.0e38f, bj[k] = -1;
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
      // Insertion into the sorted list; a tie keeps the earlier index first.
      int idx = base + j;
#pragma unroll
      for (int k = 0; k < K; ++k) {
        if (s < bd[k]) {
          const float td = bd[k];
          const int tj = bj[k];
          bd[k] = s, bj[k] = idx;
          s = td, idx = tj;
        }
      }
    }
  }
  if (i < n) {
#pragma unroll
    for (int k = 0; k < K; ++k) {
      nearest[i + k * n] = bj[k];
      dist[i + k * n] = bd[k];
    }
  }
}
