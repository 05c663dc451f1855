// Tree sum in shared memory (Harris, "Optimizing Parallel Reduction in CUDA",
// kernel 4: sequential addressing, first add during the load). Each block
// sums 2 * blockDim.x inputs into out[blockIdx.x]; the host launches it again
// on the partial sums until one value is left. blockDim.x must be a power of
// two; the shared array is sized at launch (blockDim.x floats).
extern "C" __global__ void reduce_sum(const float* __restrict__ in, float* __restrict__ out, unsigned int n) {
  extern __shared__ float sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;

  float sum = 0.0f;
  if (i < n) sum = in[i];
  if (i + blockDim.x < n) sum += in[i + blockDim.x];
  sdata[tid] = sum;
  __syncthreads();

  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) {
      sdata[tid] += sdata[tid + s];
    }
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}
