// Tree reductions in shared memory, as in the classic optimised reduction
// samples and in benchmark-suite sum kernels:
//   reduce_sum_unrolled  each thread first adds two elements per iteration of
//                        a grid-stride loop, then a fully unrolled shared
//                        tree for a 256-thread block down to 64 values, and a
//                        warp-synchronous tail (volatile shared, __syncwarp
//                        between the steps);
//   reduce_sum_shfl      warp shuffles: each warp reduces with shfl.down, lane
//                        0 parks the warp sum in shared memory, the first warp
//                        reduces those, one atomicAdd per block;
//   reduce_sum_min_max   three reductions at once (sum, minimum, maximum) plus
//                        the sum of squares, shared tree then xor shuffles,
//                        partial results per block.

#define RED_BLOCK 256

extern "C" __global__ void reduce_sum_unrolled(const float* __restrict__ in, float* __restrict__ block_sums,
                                               unsigned n) {
  __shared__ float s[RED_BLOCK];
  const unsigned tid = threadIdx.x;
  const unsigned grid = RED_BLOCK * 2 * gridDim.x;
  unsigned i = blockIdx.x * RED_BLOCK * 2 + tid;

  float sum = 0.0f;
  while (i < n) {
    sum += in[i];
    if (i + RED_BLOCK < n) sum += in[i + RED_BLOCK];
    i += grid;
  }
  s[tid] = sum;
  __syncthreads();

  if (tid < 128) s[tid] = sum = sum + s[tid + 128];
  __syncthreads();
  if (tid < 64) s[tid] = sum = sum + s[tid + 64];
  __syncthreads();

  if (tid < 32) {
    volatile float* v = s;
    v[tid] = sum = sum + v[tid + 32];
    __syncwarp();
    v[tid] = sum = sum + v[tid + 16];
    __syncwarp();
    v[tid] = sum = sum + v[tid + 8];
    __syncwarp();
    v[tid] = sum = sum + v[tid + 4];
    __syncwarp();
    v[tid] = sum = sum + v[tid + 2];
    __syncwarp();
    v[tid] = sum = sum + v[tid + 1];
  }
  if (tid == 0) block_sums[blockIdx.x] = sum;
}

extern "C" __global__ void reduce_sum_shfl(const float* __restrict__ in, float* __restrict__ total, int n) {
  __shared__ float warp_sums[32];
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;

  float sum = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) sum += in[i];

#pragma unroll
  for (int off = 16; off > 0; off >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, off);
  if (lane == 0) warp_sums[warp] = sum;
  __syncthreads();

  if (warp == 0) {
    sum = lane < (int)(blockDim.x >> 5) ? warp_sums[lane] : 0.0f;
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, off);
    if (lane == 0) atomicAdd(total, sum);
  }
}

extern "C" __global__ void reduce_sum_min_max(const float* __restrict__ in, int n, float* __restrict__ out_sum,
                                              float* __restrict__ out_sq, float* __restrict__ out_min,
                                              float* __restrict__ out_max) {
  __shared__ float ssum[RED_BLOCK], ssq[RED_BLOCK], smin[RED_BLOCK], smax[RED_BLOCK];
  const int tid = threadIdx.x;

  float sum = 0.0f, sq = 0.0f, mn = 3.402823466e38f, mx = -3.402823466e38f;
  for (int i = blockIdx.x * RED_BLOCK + tid; i < n; i += RED_BLOCK * gridDim.x) {
    const float v = in[i];
    sum += v;
    sq += v * v;
    mn = fminf(mn, v);
    mx = fmaxf(mx, v);
  }
  ssum[tid] = sum;
  ssq[tid] = sq;
  smin[tid] = mn;
  smax[tid] = mx;
  __syncthreads();

#pragma unroll
  for (int s = RED_BLOCK / 2; s >= 32; s >>= 1) {
    if (tid < s) {
      ssum[tid] = sum = sum + ssum[tid + s];
      ssq[tid] = sq = sq + ssq[tid + s];
      smin[tid] = mn = fminf(mn, smin[tid + s]);
      smax[tid] = mx = fmaxf(mx, smax[tid + s]);
    }
    __syncthreads();
  }

  if (tid < 32) {
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
      sum += __shfl_xor_sync(0xffffffffu, sum, off);
      sq += __shfl_xor_sync(0xffffffffu, sq, off);
      mn = fminf(mn, __shfl_xor_sync(0xffffffffu, mn, off));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, off));
    }
    if (tid == 0) {
      out_sum[blockIdx.x] = sum;
      out_sq[blockIdx.x] = sq;
      out_min[blockIdx.x] = mn;
      out_max[blockIdx.x] = mx;
    }
  }
}
