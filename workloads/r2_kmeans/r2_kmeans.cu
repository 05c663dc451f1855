// Rodinia kmeans (R2D2 suite), its two CUDA kernels:
//   r2_invert_mapping  one thread per point turns the point-major features
//                      (npoints x nfeatures) into the feature-major layout
//                      (nfeatures x npoints) the assignment reads coalesced
//   r2_kmeans_point    one thread per point finds its nearest cluster centre
//                      (squared Euclidean distance) and writes its membership
// Blocks of 256 threads; as in Rodinia the assignment's grid is a square
// 2-D grid of 1-D blocks folded into one block number. Rodinia reads the
// features and the centres through a texture and constant memory; here they
// are plain global loads. The host updates the centres between iterations.
#include <cfloat>

extern "C" __global__ void r2_invert_mapping(float* input, float* output, int npoints, int nfeatures) {
  int point_id = threadIdx.x + blockDim.x * blockIdx.x;
  int i;

  if (point_id < npoints) {
    for (i = 0; i < nfeatures; i++) output[point_id + npoints * i] = input[point_id * nfeatures + i];
  }
  return;
}

extern "C" __global__ void r2_kmeans_point(const float* __restrict__ features, int nfeatures, int npoints,
                                           int nclusters, int* membership, const float* __restrict__ clusters) {
  // The block and point numbers.
  const unsigned int block_id = gridDim.x * blockIdx.y + blockIdx.x;
  const unsigned int point_id = block_id * blockDim.x * blockDim.y + threadIdx.x;

  int index = -1;

  if (point_id < npoints) {
    int i, j;
    float min_dist = FLT_MAX;
    float dist;  // squared distance of the point to a centre

    for (i = 0; i < nclusters; i++) {
      int cluster_base_index = i * nfeatures;  // the centres are cluster-major
      float ans = 0.0f;
      for (j = 0; j < nfeatures; j++) {
        int addr = point_id + j * npoints;  // feature j of the point
        float diff = (features[addr] - clusters[cluster_base_index + j]);
        ans += diff * diff;
      }
      dist = ans;

      // A strictly smaller distance wins: ties go to the lower centre.
      if (dist < min_dist) {
        min_dist = dist;
        index = i;
      }
    }
  }

  if (point_id < npoints) {
    membership[point_id] = index;
  }
}
