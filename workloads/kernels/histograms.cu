// Histograms with privatised sub-histograms in shared memory:
//   hist_shared_priv  a value histogram over [lo, hi) with up to 1024 bins:
//                     each block zeroes its private copy, bins its part of
//                     the input (grid-stride, float values scaled to a bin,
//                     out-of-range values clamped to the end bins) with
//                     shared atomics, then merges the non-zero bins into the
//                     global histogram with global atomics;
//   hist256_warp_sub  the 256-bin byte histogram with one sub-histogram per
//                     warp (less contention on the shared atomics): 16 bytes
//                     per load (uint4), bytes extracted with shifts, then the
//                     block sums the 8 warp copies of each bin.

#define HB_MAX 1024
#define HW_WARPS 8

extern "C" __global__ void hist_shared_priv(const float* __restrict__ data, int n, unsigned* __restrict__ bins,
                                            int nbins, float lo, float hi) {
  __shared__ unsigned local[HB_MAX];
  for (int b = threadIdx.x; b < nbins; b += blockDim.x) local[b] = 0;
  __syncthreads();

  const float scale = nbins / (hi - lo);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    int b = (int)((data[i] - lo) * scale);
    b = b < 0 ? 0 : (b >= nbins ? nbins - 1 : b);
    atomicAdd(&local[b], 1u);
  }
  __syncthreads();

  for (int b = threadIdx.x; b < nbins; b += blockDim.x) {
    const unsigned c = local[b];
    if (c) atomicAdd(&bins[b], c);
  }
}

extern "C" __global__ void hist256_warp_sub(const uint4* __restrict__ data, int n16, unsigned* __restrict__ bins) {
  __shared__ unsigned sub[HW_WARPS][256];
  const int warp = threadIdx.x >> 5;
  for (int b = threadIdx.x; b < HW_WARPS * 256; b += blockDim.x) (&sub[0][0])[b] = 0;
  __syncthreads();

  unsigned* mine = sub[warp];
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n16; i += blockDim.x * gridDim.x) {
    const uint4 v = data[i];
    const unsigned w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      atomicAdd(&mine[w[k] & 0xffu], 1u);
      atomicAdd(&mine[(w[k] >> 8) & 0xffu], 1u);
      atomicAdd(&mine[(w[k] >> 16) & 0xffu], 1u);
      atomicAdd(&mine[w[k] >> 24], 1u);
    }
  }
  __syncthreads();

  for (int b = threadIdx.x; b < 256; b += blockDim.x) {
    unsigned total = 0;
#pragma unroll
    for (int w = 0; w < HW_WARPS; ++w) total += sub[w][b];
    if (total) atomicAdd(&bins[b], total);
  }
}
