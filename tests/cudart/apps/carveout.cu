// The shared-memory attributes of cudaFuncSetAttribute: the preferred
// carve-out reaches the driver's choice of each later launch (stats.json's
// launches[i].carveout, checked by run_app.sh) and the occupancy answers;
// dynamic shared memory over 48 KB per block needs the opt-in.
#include <cstdio>

#include "check.h"

constexpr int kWords = 10240;  // 40 KB

__global__ void none(int* out) { out[threadIdx.x] = threadIdx.x; }

__global__ void static40(int* out) {
  __shared__ int s[kWords];
  for (int i = threadIdx.x; i < kWords; i += blockDim.x) s[i] = i;
  __syncthreads();
  if (threadIdx.x == 0) out[0] = s[kWords - 1];
}

__global__ void dynamic(int* out, int words) {
  extern __shared__ int s[];
  for (int i = threadIdx.x; i < words; i += blockDim.x) s[i] = i;
  __syncthreads();
  if (threadIdx.x == 0) out[1] = s[words - 1];
}

int main() {
  int* out;
  CHECK(cudaMalloc(&out, 128 * sizeof(int)) == cudaSuccess);
  // Launch 1: no shared memory, no preference: all of the array is L1D.
  none<<<1, 128>>>(out);
  // Launch 2: the same kernel preferring the most shared memory.
  CHECK(cudaFuncSetAttribute(none, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared) ==
        cudaSuccess);
  none<<<1, 128>>>(out);
  // Launch 3: 40 KB blocks, 2 per SM: 96 KB. Launch 4: preferring the most
  // L1, one block still fits in 64 KB, at one block per SM.
  int blocks = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, static40, 128, 0) == cudaSuccess);
  CHECK(blocks == 2);
  static40<<<2, 128>>>(out);
  CHECK(cudaFuncSetAttribute(static40, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxL1) ==
        cudaSuccess);
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, static40, 128, 0) == cudaSuccess);
  CHECK(blocks == 1);
  static40<<<2, 128>>>(out);
  cudaFuncAttributes fa;
  CHECK(cudaFuncGetAttributes(&fa, static40) == cudaSuccess);
  CHECK(fa.preferredShmemCarveout == 0);
  CHECK(cudaFuncGetAttributes(&fa, none) == cudaSuccess);
  CHECK(fa.preferredShmemCarveout == 100);
  CHECK(cudaFuncSetAttribute(none, cudaFuncAttributePreferredSharedMemoryCarveout, 101) == cudaErrorInvalidValue);
  cudaGetLastError();

  // 64 KB of dynamic shared memory: refused without the opt-in, run with it.
  const int words = 16384;
  CHECK(cudaFuncGetAttributes(&fa, dynamic) == cudaSuccess);
  CHECK(fa.maxDynamicSharedSizeBytes == 48 * 1024);
  dynamic<<<1, 128, words * sizeof(int)>>>(out, words);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  CHECK(cudaFuncSetAttribute(dynamic, cudaFuncAttributeMaxDynamicSharedMemorySize, words * sizeof(int)) ==
        cudaSuccess);
  CHECK(cudaFuncGetAttributes(&fa, dynamic) == cudaSuccess);
  CHECK(fa.maxDynamicSharedSizeBytes == words * 4);
  CHECK(cudaFuncSetAttribute(dynamic, cudaFuncAttributeMaxDynamicSharedMemorySize, 97 * 1024) ==
        cudaErrorInvalidValue);
  cudaGetLastError();
  dynamic<<<1, 128, words * sizeof(int)>>>(out, words);  // launch 5: 64 KB
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  int h[2];
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(h[0] == kWords - 1 && h[1] == words - 1);
  std::printf("carveout: all checks passed\n");
  return 0;
}
