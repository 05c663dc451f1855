// 256-bin histogram of bytes. Each block counts its grid-stride share into a
// private histogram in shared memory (shared-memory atomics, contended when
// the data is skewed), then adds it to the global histogram with one global
// atomic per non-empty bin. Any block size works: the loops over bins stride
// by blockDim.x.
#define NUM_BINS 256

extern "C" __global__ void histogram256(const unsigned char* __restrict__ data, unsigned int n,
                                        unsigned int* __restrict__ bins) {
  __shared__ unsigned int local[NUM_BINS];
  for (unsigned int b = threadIdx.x; b < NUM_BINS; b += blockDim.x) local[b] = 0;
  __syncthreads();

  for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    atomicAdd(&local[data[i]], 1u);
  }
  __syncthreads();

  for (unsigned int b = threadIdx.x; b < NUM_BINS; b += blockDim.x) {
    unsigned int count = local[b];
    if (count != 0) atomicAdd(&bins[b], count);
  }
}
