// k-means (Lloyd's algorithm) written the way ML libraries such as cuML
// layer their device code: the distance of a point to a centroid goes
// through a long chain of small non-inlined helpers (metric dispatch,
// dimension blocking, a column map for feature subsets, bounds checks).
// Each iteration is two launches:
//   kmeans_assign: one thread per point, 11 calls deep --
//     assign -> nearest_centroid -> distance -> metric_dispatch -> l2_metric
//       -> accumulate_dims -> dim_block -> fma_pair -> load_feature
//       -> feature_offset -> clamp_index
//   kmeans_update: one thread per centroid coordinate, the mean of the
//   points assigned to the centroid (in point order: no atomics)
//     -> centroid_coord -> cluster_count
//                       -> cluster_sum -> member_value
// Every non-leaf level keeps a few values (pointers, indices, a partial sum)
// live across its call, so they sit in callee-saved registers that each
// callee saves on entry and restores on return, at every level of the chain.
// The arithmetic is a fixed sequence of fmas, subtractions and correctly
// rounded divisions, so a CPU doing the same operations in the same order
// gets the same bits.
//
// The helpers are the paper's library module (CARS compiles the common
// device functions as a separate module): lib/mlchain_lib.cu, its own
// translation unit, which the model links with this one (ptx/link.h).
//
// Compiled with -rdc=true (separate compilation: the calls stay calls):
// rfsim: rdc
// rfsim: link lib/mlchain_lib

#include "lib/mlchain_lib.cuh"

extern "C" __global__ void kmeans_assign(const float* __restrict__ pts, const float* __restrict__ cents,
                                         int* __restrict__ labels, float* __restrict__ dists,
                                         const int* __restrict__ cols, int n, int k, int d, int metric) {
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= n) return;
  assign(pts, cents, labels, dists, p, k, d, cols, metric);
}

// One thread per centroid coordinate; reads and writes only its own element
// of cents.
extern "C" __global__ void kmeans_update(const float* __restrict__ pts, const int* __restrict__ labels,
                                         float* __restrict__ cents, int n, int k, int d) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= k * d) return;
  int c = i / d, j = i % d;
  float v = centroid_coord(pts, labels, cents, c, j, n, d);
  cents[i] = v;
}
