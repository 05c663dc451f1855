// Exclusive prefix sum of unsigned integers, in passes (Harris, Sengupta and
// Owens, "Parallel Prefix Sum (Scan) with CUDA", GPU Gems 3, ch. 39):
//   scan_blocks       each block scans 2 * blockDim.x elements with the
//                     work-efficient Blelloch up-sweep/down-sweep in shared
//                     memory and writes its total to block_sums;
//   (the host scans block_sums the same way, recursively)
//   scan_add_offsets  adds each block's scanned total to its elements.
// Shared memory is sized at launch: 2 * blockDim.x words plus one padding
// word per 32 (the bank-conflict-avoiding offset). blockDim.x must be a power
// of two.
#define LOG_NUM_BANKS 5
#define CONFLICT_FREE_OFFSET(i) ((i) >> LOG_NUM_BANKS)

extern "C" __global__ void scan_blocks(const unsigned int* __restrict__ in, unsigned int* __restrict__ out,
                                       unsigned int* __restrict__ block_sums, unsigned int n) {
  extern __shared__ unsigned int temp[];
  unsigned int tid = threadIdx.x;
  unsigned int m = 2 * blockDim.x;  // elements per block
  unsigned int base = blockIdx.x * m;

  unsigned int ai = tid;
  unsigned int bi = tid + blockDim.x;
  unsigned int bank_a = CONFLICT_FREE_OFFSET(ai);
  unsigned int bank_b = CONFLICT_FREE_OFFSET(bi);
  temp[ai + bank_a] = base + ai < n ? in[base + ai] : 0;
  temp[bi + bank_b] = base + bi < n ? in[base + bi] : 0;

  // Up-sweep (reduce): build partial sums in place.
  unsigned int offset = 1;
  for (unsigned int d = m >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (tid < d) {
      unsigned int a = offset * (2 * tid + 1) - 1;
      unsigned int b = offset * (2 * tid + 2) - 1;
      a += CONFLICT_FREE_OFFSET(a);
      b += CONFLICT_FREE_OFFSET(b);
      temp[b] += temp[a];
    }
    offset *= 2;
  }

  // The root holds the block's total: save it and clear it for the down-sweep.
  if (tid == 0) {
    unsigned int last = m - 1 + CONFLICT_FREE_OFFSET(m - 1);
    if (block_sums != nullptr) block_sums[blockIdx.x] = temp[last];
    temp[last] = 0;
  }

  // Down-sweep: traverse back down, swapping and adding.
  for (unsigned int d = 1; d < m; d *= 2) {
    offset >>= 1;
    __syncthreads();
    if (tid < d) {
      unsigned int a = offset * (2 * tid + 1) - 1;
      unsigned int b = offset * (2 * tid + 2) - 1;
      a += CONFLICT_FREE_OFFSET(a);
      b += CONFLICT_FREE_OFFSET(b);
      unsigned int t = temp[a];
      temp[a] = temp[b];
      temp[b] += t;
    }
  }
  __syncthreads();

  if (base + ai < n) out[base + ai] = temp[ai + bank_a];
  if (base + bi < n) out[base + bi] = temp[bi + bank_b];
}

extern "C" __global__ void scan_add_offsets(unsigned int* __restrict__ data, const unsigned int* __restrict__ offsets,
                                            unsigned int n) {
  unsigned int add = offsets[blockIdx.x];
  unsigned int i = blockIdx.x * 2 * blockDim.x + threadIdx.x;
  if (i < n) data[i] += add;
  if (i + blockDim.x < n) data[i + blockDim.x] += add;
}
