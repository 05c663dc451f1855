// Warp-synchronous primitives: a grid-stride sum reduction built on
// __shfl_down_sync (warp) and __shfl_xor_sync (across the block's warp sums),
// vote-based counting (__ballot_sync + __popc, __any_sync), and an inclusive
// block scan built on __shfl_up_sync with a __shfl_sync broadcast.
//
// Block sizes must be a multiple of 32 (so every warp is full and the votes
// see all 32 lanes) and at most 1024.

#define FULL_MASK 0xffffffffu
#define WARP_SIZE 32  // a compile-time constant, so the shuffle loops unroll

__device__ __forceinline__ long long warp_sum(long long v) {
  for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2)
    v += __shfl_down_sync(FULL_MASK, v, offset);
  return v;  // complete in lane 0
}

// stats[0] += sum of in[]; stats[1] += count of in[i] > 0;
// stats[2] += number of 32-element chunks holding at least one negative value.
extern "C" __global__ void reduce_sum_vote(const int* __restrict__ in, int n,
                                           unsigned long long* __restrict__ stats) {
  __shared__ long long warp_sums[32];
  __shared__ unsigned warp_pos[32], warp_neg_chunks[32];
  int lane = threadIdx.x % WARP_SIZE;
  int warp = threadIdx.x / WARP_SIZE;

  long long sum = 0;
  unsigned positives = 0, neg_chunks = 0;
  // The loop condition depends on `base` only, so whole warps iterate
  // together and the votes always run with the full mask.
  for (int base = blockIdx.x * blockDim.x + warp * WARP_SIZE; base < n;
       base += gridDim.x * blockDim.x) {
    int i = base + lane;
    int v = i < n ? in[i] : 0;
    sum += v;
    unsigned pos = __ballot_sync(FULL_MASK, v > 0);
    positives += __popc(pos);  // identical in every lane
    if (__any_sync(FULL_MASK, v < 0)) ++neg_chunks;
  }

  sum = warp_sum(sum);
  if (lane == 0) {
    warp_sums[warp] = sum;
    warp_pos[warp] = positives;
    warp_neg_chunks[warp] = neg_chunks;
  }
  __syncthreads();

  if (warp == 0) {
    int nwarps = blockDim.x / WARP_SIZE;
    long long s = lane < nwarps ? warp_sums[lane] : 0;
    unsigned p = lane < nwarps ? warp_pos[lane] : 0;
    unsigned c = lane < nwarps ? warp_neg_chunks[lane] : 0;
    // Butterfly: every lane ends with the block total.
    for (int mask = WARP_SIZE / 2; mask > 0; mask /= 2) {
      s += __shfl_xor_sync(FULL_MASK, s, mask);
      p += __shfl_xor_sync(FULL_MASK, p, mask);
      c += __shfl_xor_sync(FULL_MASK, c, mask);
    }
    if (lane == 0) {
      atomicAdd(&stats[0], (unsigned long long)s);
      atomicAdd(&stats[1], (unsigned long long)p);
      atomicAdd(&stats[2], (unsigned long long)c);
    }
  }
}

// Inclusive prefix sum of each block's slice of in[] (a segmented scan with
// one segment per block): Kogge-Stone within each warp, then the warp totals
// are scanned by warp 0 and broadcast back.
extern "C" __global__ void block_scan(const int* __restrict__ in, int* __restrict__ out, int n) {
  __shared__ int warp_totals[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % WARP_SIZE;
  int warp = threadIdx.x / WARP_SIZE;

  int x = i < n ? in[i] : 0;
  for (int offset = 1; offset < WARP_SIZE; offset *= 2) {
    int y = __shfl_up_sync(FULL_MASK, x, offset);
    if (lane >= offset) x += y;
  }
  if (lane == WARP_SIZE - 1) warp_totals[warp] = x;
  __syncthreads();

  if (warp == 0) {
    int nwarps = blockDim.x / WARP_SIZE;
    int t = lane < nwarps ? warp_totals[lane] : 0;
    for (int offset = 1; offset < WARP_SIZE; offset *= 2) {
      int y = __shfl_up_sync(FULL_MASK, t, offset);
      if (lane >= offset) t += y;
    }
    warp_totals[lane] = t;  // inclusive scan of the warp totals
  }
  __syncthreads();

  // Lane 0 fetches the exclusive prefix of this warp and broadcasts it.
  int prefix = lane == 0 && warp > 0 ? warp_totals[warp - 1] : 0;
  x += __shfl_sync(FULL_MASK, prefix, 0);
  if (i < n) out[i] = x;
}
