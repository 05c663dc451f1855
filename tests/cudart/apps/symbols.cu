// __device__, __constant__ and __managed__ variables; cudaMemcpyToSymbol,
// FromSymbol, GetSymbolAddress; managed and page-locked host memory.
#include <cstdio>

#include "check.h"

__device__ int table[8];
__constant__ float coef[4];
__managed__ int counter;

__global__ void use(float* out, int* managed) {
  const int t = threadIdx.x;
  out[t] = table[t % 8] * coef[t % 4];
  managed[t] *= 2;
  atomicAdd(&counter, 1);
}

__global__ void viaPointer(int* tab) { tab[threadIdx.x] += 100; }

int main() {
  int ht[8];
  for (int i = 0; i < 8; ++i) ht[i] = i + 1;
  const float hc[4] = {0.5f, 1.0f, 2.0f, 4.0f};
  CHECK(cudaMemcpyToSymbol(table, ht, sizeof ht) == cudaSuccess);
  CHECK(cudaMemcpyToSymbol(coef, hc, sizeof hc) == cudaSuccess);
  CHECK(cudaMemcpyToSymbol(coef, hc, sizeof hc, 8) == cudaErrorInvalidValue);  // past the end
  counter = 10;  // the host writes managed memory directly
  int* managed;
  CHECK(cudaMallocManaged(&managed, 32 * sizeof(int)) == cudaSuccess);
  for (int i = 0; i < 32; ++i) managed[i] = i;
  float* out;
  CHECK(cudaMalloc(&out, 32 * sizeof(float)) == cudaSuccess);
  use<<<1, 32>>>(out, managed);
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(counter == 42);
  for (int i = 0; i < 32; ++i) CHECK(managed[i] == 2 * i);
  float* pinned;
  CHECK(cudaMallocHost(&pinned, 32 * sizeof(float)) == cudaSuccess);
  CHECK(cudaMemcpy(pinned, out, 32 * sizeof(float), cudaMemcpyDefault) == cudaSuccess);
  for (int t = 0; t < 32; ++t) CHECK(pinned[t] == ht[t % 8] * hc[t % 4]);
  int* tab;
  CHECK(cudaGetSymbolAddress((void**)&tab, table) == cudaSuccess);
  viaPointer<<<1, 8>>>(tab);
  int back[8];
  CHECK(cudaMemcpyFromSymbol(back, table, sizeof back) == cudaSuccess);
  for (int i = 0; i < 8; ++i) CHECK(back[i] == i + 101);
  size_t size = 0;
  CHECK(cudaGetSymbolSize(&size, coef) == cudaSuccess && size == sizeof hc);
  CHECK(cudaFreeHost(pinned) == cudaSuccess);
  CHECK(cudaFree(managed) == cudaSuccess);
  std::printf("symbols: all checks passed\n");
  return 0;
}
