// Each kernel is charged for the shared memory its own code reaches, as
// ptxas counts it: three kernels with 40 KB of shared arrays each (120 KB in
// the module, more than a block may use) and one with none all launch, and
// cudaFuncGetAttributes reports each kernel's own bytes.
#include <cstdio>

#include "check.h"

constexpr int kWords = 10240;  // 40 KB

__global__ void a(int* out) {
  __shared__ int s[kWords];
  for (int i = threadIdx.x; i < kWords; i += blockDim.x) s[i] = i;
  __syncthreads();
  if (threadIdx.x == 0) out[0] = s[kWords - 1];
}

__global__ void b(int* out) {
  __shared__ int s[kWords];
  for (int i = threadIdx.x; i < kWords; i += blockDim.x) s[i] = 2 * i;
  __syncthreads();
  if (threadIdx.x == 0) out[1] = s[kWords - 1];
}

__global__ void c(int* out) {
  __shared__ int s[kWords];
  for (int i = threadIdx.x; i < kWords; i += blockDim.x) s[i] = 3 * i;
  __syncthreads();
  if (threadIdx.x == 0) out[2] = s[kWords - 1];
}

__global__ void none(int* out) { out[3] = 7; }

int main() {
  int* out;
  CHECK(cudaMalloc(&out, 4 * sizeof(int)) == cudaSuccess);
  a<<<2, 128>>>(out);
  b<<<2, 128>>>(out);
  c<<<2, 128>>>(out);
  none<<<1, 32>>>(out);
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  int h[4];
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(h[0] == kWords - 1 && h[1] == 2 * (kWords - 1) && h[2] == 3 * (kWords - 1) && h[3] == 7);
  cudaFuncAttributes fa;
  CHECK(cudaFuncGetAttributes(&fa, a) == cudaSuccess);
  CHECK(fa.sharedSizeBytes == kWords * sizeof(int));
  CHECK(cudaFuncGetAttributes(&fa, none) == cudaSuccess);
  CHECK(fa.sharedSizeBytes == 0);
  std::printf("shared_per_kernel: all checks passed\n");
  return 0;
}
