// The assignment step of k-means (LTRF suite, register-insensitive; after
// Rodinia's kmeans, whose host computes the new centres): every point takes
// the index of its nearest centre in squared Euclidean distance (the first
// on a tie). One thread per point; the features are feature-major
// (features[f * npoints + p]: a warp's loads are coalesced) and the centres
// are in constant memory (every lane reads the same word). Each squared
// difference is added with an explicit fused multiply-add, so the host can
// reproduce every distance bit for bit.
#define MAX_CENTRES 16
#define MAX_FEATURES 32

__constant__ float c_centres[MAX_CENTRES * MAX_FEATURES];  // centre c, feature f at c * nfeatures + f

extern "C" __global__ void __launch_bounds__(256) lt_kmeans_assign(const float* __restrict__ features, int npoints,
                                                                   int nfeatures, int ncentres,
                                                                   int* __restrict__ membership) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= npoints) return;
  int best = 0;
  float best_dist = 3.4e38f;
  for (int c = 0; c < ncentres; ++c) {
    float dist = 0.0f;
#pragma unroll 1  // a loop, as in Rodinia (unrolled, nvcc hoists the loads: 52 registers)
    for (int f = 0; f < nfeatures; ++f) {
      const float d = features[f * npoints + p] - c_centres[c * nfeatures + f];
      dist = __fmaf_rn(d, d, dist);
    }
    if (dist < best_dist) best_dist = dist, best = c;
  }
  membership[p] = best;
}
