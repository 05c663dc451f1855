// The library module of mlchain (mlchain.cu has the kernels): the distance
// chain and the centroid update of a k-means in the style of cuML, compiled
// as its own translation unit as the CARS paper compiles the common device
// functions (a separate module). nvcc compiles each unit without knowing
// the other, so the kernels' calls into this unit follow the full ABI:
// values live across a call sit in callee-saved registers (R16 up) that the
// callee saves and restores. Within this unit the compiler knows its own
// helpers' code but not that they stay (they are .weak, below). The model
// links the two modules (ptx/link.h) as nvlink does.
// rfsim: rdc

#include "mlchain_lib.cuh"

// The helpers have weak linkage (`inline`: .weak in the PTX), as library code
// that another module may replace at link time: even within this unit their
// callers may not assume which registers they leave alone, so every call
// follows the full ABI. The two functions the kernels call (assign,
// centroid_coord) are this unit's strong, visible entry points.
#define LIB __device__ __noinline__ inline
#define ENTRY __device__ __noinline__

#define METRIC_L2 0
#define METRIC_L1 1
#define METRIC_L2_SQRT 2
#define DIM_BLOCK 4

// t clamped into [0, d): the bounds check of a feature index.
LIB int clamp_index(int t, int d) { return t < 0 ? 0 : (t >= d ? d - 1 : t); }

// The storage column of feature t (the column map selects and orders the
// features used).
LIB int feature_offset(int t, int d, const int* __restrict__ cols) {
  return cols[clamp_index(t, d)];
}

LIB float load_feature(const float* __restrict__ row, int t, int d, const int* __restrict__ cols) {
  return row[feature_offset(t, d, cols)];
}

// acc + (x_t - y_t)^2, in one fma.
LIB float fma_pair(const float* __restrict__ x, const float* __restrict__ y, int t, int d,
                                       const int* __restrict__ cols, float acc) {
  float a = load_feature(x, t, d, cols);
  float b = load_feature(y, t, d, cols);
  float diff = a - b;
  return fmaf(diff, diff, acc);
}

// Features [j, jend) of one block, in order.
LIB float dim_block(const float* __restrict__ x, const float* __restrict__ y, int j, int jend,
                                        int d, const int* __restrict__ cols, float acc) {
  for (int t = j; t < jend; ++t) acc = fma_pair(x, y, t, d, cols, acc);
  return acc;
}

// Features [j0, j1) in blocks of DIM_BLOCK.
LIB float accumulate_dims(const float* __restrict__ x, const float* __restrict__ y, int j0, int j1,
                                              int d, const int* __restrict__ cols, float acc) {
  for (int j = j0; j < j1; j += DIM_BLOCK) acc = dim_block(x, y, j, min(j + DIM_BLOCK, j1), d, cols, acc);
  return acc;
}

// Squared Euclidean distance, the two halves of the features one after the
// other (as a split reduction would).
LIB float l2_metric(const float* __restrict__ x, const float* __restrict__ y, int d,
                                        const int* __restrict__ cols) {
  int half = d / 2;
  float acc = accumulate_dims(x, y, 0, half, d, cols, 0.0f);
  return accumulate_dims(x, y, half, d, d, cols, acc);
}

// Manhattan distance (a metric the dispatch offers; the host uses L2).
LIB float l1_metric(const float* __restrict__ x, const float* __restrict__ y, int d,
                                        const int* __restrict__ cols) {
  float acc = 0.0f;
  for (int t = 0; t < d; ++t) acc += fabsf(load_feature(x, t, d, cols) - load_feature(y, t, d, cols));
  return acc;
}

LIB float metric_dispatch(const float* __restrict__ x, const float* __restrict__ y, int d,
                                              const int* __restrict__ cols, int metric) {
  if (metric == METRIC_L1) return l1_metric(x, y, d, cols);
  float r = l2_metric(x, y, d, cols);
  return metric == METRIC_L2_SQRT ? sqrtf(r) : r;
}

// The metric divided by the number of features (mean squared difference for
// L2).
LIB float distance(const float* __restrict__ x, const float* __restrict__ y, int d,
                                       const int* __restrict__ cols, int metric) {
  float inv_d = 1.0f / static_cast<float>(d);
  return metric_dispatch(x, y, d, cols, metric) * inv_d;
}

// The nearest centroid (the lowest index among equals).
LIB int nearest_centroid(const float* __restrict__ x, const float* __restrict__ cents, int k, int d,
                                             const int* __restrict__ cols, int metric) {
  int best = 0;
  float best_dist = distance(x, cents, d, cols, metric);
  for (int c = 1; c < k; ++c) {
    float dist = distance(x, cents + c * d, d, cols, metric);
    if (dist < best_dist) {
      best_dist = dist;
      best = c;
    }
  }
  return best;
}

// Label point p and record its distance to the chosen centroid.
ENTRY void assign(const float* __restrict__ pts, const float* __restrict__ cents,
                                    int* __restrict__ labels, float* __restrict__ dists, int p, int k, int d,
                                    const int* __restrict__ cols, int metric) {
  const float* x = pts + p * d;
  int c = nearest_centroid(x, cents, k, d, cols, metric);
  labels[p] = c;
  dists[p] = distance(x, cents + c * d, d, cols, metric);
}


// Point p's coordinate j if it belongs to cluster c, else 0.
LIB float member_value(const float* __restrict__ pts, const int* __restrict__ labels, int p, int c,
                                           int j, int d) {
  return labels[p] == c ? pts[p * d + j] : 0.0f;
}

LIB float cluster_sum(const float* __restrict__ pts, const int* __restrict__ labels, int c, int j,
                                          int n, int d) {
  float sum = 0.0f;
  for (int p = 0; p < n; ++p) sum += member_value(pts, labels, p, c, j, d);
  return sum;
}

LIB int cluster_count(const int* __restrict__ labels, int c, int n) {
  int count = 0;
  for (int p = 0; p < n; ++p) count += labels[p] == c;
  return count;
}

// The new coordinate j of centroid c: the mean over its points, or the old
// value when it has none.
ENTRY float centroid_coord(const float* __restrict__ pts, const int* __restrict__ labels,
                                             const float* __restrict__ cents, int c, int j, int n, int d) {
  int count = cluster_count(labels, c, n);
  if (count == 0) return cents[c * d + j];
  float sum = cluster_sum(pts, labels, c, j, n, d);
  return sum / static_cast<float>(count);
}
