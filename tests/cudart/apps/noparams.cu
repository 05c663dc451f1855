// Kernels without parameters (`.visible .entry _Z4initv()` in the PTX) are
// registered and launched like any other: they reach their data through
// __device__ variables.
#include <cstdio>

#include "check.h"

__device__ int data[64];
__device__ int total;

__global__ void init() { data[threadIdx.x] = threadIdx.x + 1; }

__global__ void sum() {
  if (threadIdx.x == 0) {
    int s = 0;
    for (int i = 0; i < 64; ++i) s += data[i];
    total = s;
  }
}

int main() {
  init<<<1, 64>>>();
  sum<<<1, 32>>>();
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  int h = 0;
  CHECK(cudaMemcpyFromSymbol(&h, total, sizeof h) == cudaSuccess);
  CHECK(h == 64 * 65 / 2);
  std::printf("noparams: all checks passed (total %d)\n", h);
  return 0;
}
