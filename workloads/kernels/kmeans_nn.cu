// Distance loops of clustering and nearest-neighbour codes:
//   kmeans_assign  the assignment step of k-means: every thread takes one
//                  point (features stored feature-major so that a warp reads
//                  consecutive points), computes its squared distance to each
//                  of K centres held in constant memory by looping over the F
//                  features, keeps the closest, and counts membership changes
//                  with a block-level count and one atomic per block;
//   knn_top4       brute-force k-nearest neighbours in 3-D: reference points
//                  stream through shared memory in tiles of 128, every query
//                  keeps its 4 best distances and indices in registers with an
//                  unrolled insertion.

#define KM_MAX_CLUSTERS 16
#define KM_MAX_FEATURES 64
#define KNN_TILE 128
#define KNN_K 4

__constant__ float c_centres[KM_MAX_CLUSTERS * KM_MAX_FEATURES];

extern "C" __global__ void kmeans_assign(const float* __restrict__ features, int npoints, int nclusters,
                                         int nfeatures, int* __restrict__ membership, int* __restrict__ changed) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  int moved = 0;
  if (p < npoints) {
    int best = 0;
    float best_dist = 3.402823466e38f;
    for (int c = 0; c < nclusters; ++c) {
      float dist = 0.0f;
      const float* centre = c_centres + c * nfeatures;
#pragma unroll 4
      for (int f = 0; f < nfeatures; ++f) {
        const float d = features[f * npoints + p] - centre[f];
        dist += d * d;
      }
      if (dist < best_dist) {
        best_dist = dist;
        best = c;
      }
    }
    moved = membership[p] != best;
    membership[p] = best;
  }
  const int block_moved = __syncthreads_count(moved);
  if (threadIdx.x == 0 && block_moved) atomicAdd(changed, block_moved);
}

extern "C" __global__ void knn_top4(const float4* __restrict__ refs, int nref, const float4* __restrict__ queries,
                                    int nq, int* __restrict__ out_idx, float* __restrict__ out_dist) {
  __shared__ float4 tile[KNN_TILE];
  const int q = blockIdx.x * blockDim.x + threadIdx.x;
  const float4 me = q < nq ? queries[q] : make_float4(0.f, 0.f, 0.f, 0.f);

  float bd[KNN_K];
  int bi[KNN_K];
#pragma unroll
  for (int k = 0; k < KNN_K; ++k) {
    bd[k] = 3.402823466e38f;
    bi[k] = -1;
  }

  for (int t0 = 0; t0 < nref; t0 += KNN_TILE) {
    for (int l = threadIdx.x; l < KNN_TILE; l += blockDim.x)
      tile[l] = t0 + l < nref ? refs[t0 + l] : make_float4(1e18f, 1e18f, 1e18f, 0.f);
    __syncthreads();
#pragma unroll 4
    for (int j = 0; j < KNN_TILE; ++j) {
      const float4 r = tile[j];
      const float dx = r.x - me.x, dy = r.y - me.y, dz = r.z - me.z;
      float d = dx * dx + dy * dy + dz * dz;
      int id = t0 + j;
      if (d < bd[KNN_K - 1]) {
        // Insertion: bubble the new candidate into the sorted list.
#pragma unroll
        for (int k = 0; k < KNN_K; ++k) {
          if (d < bd[k]) {
            const float td = bd[k];
            const int ti = bi[k];
            bd[k] = d;
            bi[k] = id;
            d = td;
            id = ti;
          }
        }
      }
    }
    __syncthreads();
  }

  if (q < nq) {
#pragma unroll
    for (int k = 0; k < KNN_K; ++k) {
      out_idx[q * KNN_K + k] = bi[k];
      out_dist[q * KNN_K + k] = sqrtf(bd[k]);
    }
  }
}
