// Quality-threshold clustering, modelled on SHOC's QTC_device (the RegDem
// paper's qtc, Table 1: 64 threads per block, 512 B of static shared memory,
// 55 registers from nvcc 6.5 for sm_52, target 48). A block takes one seed
// point at a time (seed = blockIdx.x, blockIdx.x + gridDim.x, ...) and grows
// its candidate cluster greedily, as SHOC's generate_candidate_cluster does:
// the candidates are the seed's neighbours within the threshold (the host's
// list, SHOC's indr_mtrx and degrees), each thread owning up to K of them;
// every candidate keeps its largest squared distance to a member so far
// (SHOC's dist_to_clust), and each step adds the candidate whose distance is
// smallest (then the one first in the list), as long as it stays within the
// threshold, found by a min-reduction over the block in shared memory (two
// arrays of 64 words, 512 B, as SHOC's tmp_max_card and tmp_best_index).
// Every block writes each seed's cluster (the points in the order they
// joined), its size and its squared diameter, and, as SHOC's kernel, the
// largest cluster it found and its seed.
//
// Differs from SHOC's kernel: the distances are computed from the points'
// 2-d coordinates instead of read from a precomputed distance matrix, and
// each thread keeps its K = 6 candidates' coordinates and distances in
// registers (SHOC keeps dist_to_clust in global memory). That is what puts
// the register count in the 50s, above the GTX Titan X's occupancy step at
// 48 (18 blocks of 64 threads per SM at 49..56 registers, 21 at 48): our
// back end needs 55, the paper's count (ptxas 13 for sm_75: 48); 5
// candidates per thread would give 49, 3-d points with 4 or 5 give 49 or 56.
#define BLOCK 64
#define K 6
#define DIMS 2

extern "C" __global__ void __launch_bounds__(BLOCK)
qtc(const float* pts, int n, const int* neigh, const int* degree, int max_degree, int seeds, float threshold_sq,
    int* members, int* card, float* diam_sq, int* block_card, int* block_seed) {
  __shared__ float red_d[BLOCK];
  __shared__ int red_i[BLOCK];
  const int tid = threadIdx.x;
  const float none = 3.0e38f;
  int best_card = -1, best_seed = -1;
  for (int seed = blockIdx.x; seed < seeds; seed += gridDim.x) {
    const int deg = degree[seed];
    const int* list = neigh + seed * max_degree;
    // The thread's candidates: list positions tid, tid + 64, ... Their
    // coordinates, and their largest squared distance to the cluster (none:
    // not a candidate, or already in the cluster, or beyond the threshold).
    float c[K][DIMS], dm[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const int pos = k * BLOCK + tid;
      dm[k] = none;
#pragma unroll
      for (int d = 0; d < DIMS; ++d) c[k][d] = 0.0f;
      if (pos < deg) {
        const int j = list[pos];
#pragma unroll
        for (int d = 0; d < DIMS; ++d) c[k][d] = pts[d * n + j];
        dm[k] = 0.0f;
      }
    }
    // The member added last (first the seed itself).
    float w[DIMS];
#pragma unroll
    for (int d = 0; d < DIMS; ++d) w[d] = pts[d * n + seed];
    int size = 1;
    float diam = 0.0f;
    if (tid == 0) members[seed * (max_degree + 1)] = seed;
    for (;;) {
      // Every candidate's distance to the cluster now includes the last member;
      // the thread's best candidate (smallest distance, then smallest position).
      float bd = none;
      int bp = 0x7fffffff;
#pragma unroll
      for (int k = 0; k < K; ++k) {
        if (dm[k] <= threshold_sq) {
          float s = 0.0f;
#pragma unroll
          for (int d = 0; d < DIMS; ++d) {
            const float t = c[k][d] - w[d];
            s += t * t;
          }
          dm[k] = fmaxf(dm[k], s);
          if (dm[k] <= threshold_sq && dm[k] < bd) bd = dm[k], bp = k * BLOCK + tid;
        }
      }
      // The block's best: a tree reduction in shared memory.
      red_d[tid] = bd;
      red_i[tid] = bp;
      __syncthreads();
#pragma unroll
      for (int half = BLOCK / 2; half > 0; half /= 2) {
        if (tid < half) {
          const float od = red_d[tid + half];
          const int oi = red_i[tid + half];
          if (od < bd || (od == bd && oi < bp)) bd = od, bp = oi;
          red_d[tid] = bd;
          red_i[tid] = bp;
        }
        __syncthreads();
      }
      const float win_d = red_d[0];
      const int win = red_i[0];
      __syncthreads();
      if (win_d > threshold_sq) break;
      // The winner joins: its owner drops it from its candidates; all read
      // its coordinates for the next step.
#pragma unroll
      for (int k = 0; k < K; ++k)
        if (win == k * BLOCK + tid) dm[k] = none;
      const int j = list[win];
#pragma unroll
      for (int d = 0; d < DIMS; ++d) w[d] = pts[d * n + j];
      diam = fmaxf(diam, win_d);
      if (tid == 0) members[seed * (max_degree + 1) + size] = j;
      ++size;
    }
    if (tid == 0) {
      card[seed] = size;
      diam_sq[seed] = diam;
    }
    if (size > best_card) best_card = size, best_seed = seed;
  }
  if (tid == 0) {
    block_card[blockIdx.x] = best_card;
    block_seed[blockIdx.x] = best_seed;
  }
}
