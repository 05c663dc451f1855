// Nearest neighbour (LTRF suite, register-insensitive; after Rodinia's nn):
// the distance of every record (latitude, longitude) to a target, one
// thread per record, then the nearest record by a min-reduction of
// (distance, index) pairs on the GPU: each block reduces 2 * blockDim
// elements in shared memory to one pair (the lower index on a tie), and the
// host relaunches the reduction on the blocks' pairs until one is left.
// The distance uses explicitly rounded operations, so the host reproduces
// it bit for bit.
extern "C" __global__ void __launch_bounds__(256) lt_nn_distance(const float2* __restrict__ records, int n,
                                                                 float lat, float lng, float* __restrict__ dist) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float2 r = records[i];
  const float dx = r.x - lat, dy = r.y - lng;
  dist[i] = sqrtf(__fmaf_rn(dx, dx, __fmul_rn(dy, dy)));
}

// in_dist[0..n), with their indices in in_index (null: the positions
// themselves); block b writes its nearest to out_dist[b], out_index[b].
extern "C" __global__ void __launch_bounds__(256) lt_nn_argmin(const float* __restrict__ in_dist,
                                                               const int* __restrict__ in_index, int n,
                                                               float* __restrict__ out_dist,
                                                               int* __restrict__ out_index) {
  __shared__ float sd[256];
  __shared__ int si[256];
  const int t = threadIdx.x;
  const int i = blockIdx.x * 2 * blockDim.x + t;
  float d = 3.4e38f;
  int idx = 0x7fffffff;
  if (i < n) d = in_dist[i], idx = in_index ? in_index[i] : i;
  const int j = i + blockDim.x;
  if (j < n) {
    const float d2 = in_dist[j];
    const int idx2 = in_index ? in_index[j] : j;
    if (d2 < d || (d2 == d && idx2 < idx)) d = d2, idx = idx2;
  }
  sd[t] = d;
  si[t] = idx;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) {
      const float d2 = sd[t + s];
      const int idx2 = si[t + s];
      if (d2 < d || (d2 == d && idx2 < idx)) {
        d = d2, idx = idx2;
        sd[t] = d;
        si[t] = idx;
      }
    }
    __syncthreads();
  }
  if (t == 0) out_dist[blockIdx.x] = d, out_index[blockIdx.x] = idx;
}
