// Stream-ordered allocation: cudaMallocAsync and cudaFreeAsync on a stream
// and on the default stream, the device's default pool and its attributes,
// a pool of one's own (cudaMemPoolCreate, cudaMallocFromPoolAsync), and the
// errors of a bad free and a bad pool.
#include <cstdint>
#include <cstdio>

#include "check.h"

__global__ void iota(int* p, int n, int k) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = i * k;
}

__global__ void add(const int* a, const int* b, int* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

int main() {
  int supported = 0;
  CHECK(cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, 0) == cudaSuccess && supported == 1);
  cudaMemPool_t pool;
  CHECK(cudaDeviceGetDefaultMemPool(&pool, 0) == cudaSuccess);
  cudaMemPool_t current;
  CHECK(cudaDeviceGetMemPool(&current, 0) == cudaSuccess && current == pool);
  uint64_t threshold = UINT64_MAX;
  CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold) == cudaSuccess);
  uint64_t got = 0;
  CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &got) == cudaSuccess && got == UINT64_MAX);

  const int n = 1000;
  cudaStream_t st;
  CHECK(cudaStreamCreate(&st) == cudaSuccess);
  int *a = nullptr, *b = nullptr, *c = nullptr;
  CHECK(cudaMallocAsync(&a, n * sizeof(int), st) == cudaSuccess);
  CHECK(cudaMallocAsync(&b, n * sizeof(int), st) == cudaSuccess);
  CHECK(cudaMallocAsync(&c, n * sizeof(int), 0) == cudaSuccess);
  uint64_t used = 0;
  CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used) == cudaSuccess);
  CHECK(used == 3 * n * sizeof(int));
  iota<<<(n + 255) / 256, 256, 0, st>>>(a, n, 1);
  iota<<<(n + 255) / 256, 256, 0, st>>>(b, n, 2);
  add<<<(n + 255) / 256, 256, 0, st>>>(a, b, c, n);
  static int h[n];
  CHECK(cudaMemcpyAsync(h, c, sizeof h, cudaMemcpyDeviceToHost, st) == cudaSuccess);
  CHECK(cudaFreeAsync(a, st) == cudaSuccess);
  CHECK(cudaFreeAsync(b, st) == cudaSuccess);
  CHECK(cudaStreamSynchronize(st) == cudaSuccess);
  for (int i = 0; i < n; ++i) CHECK(h[i] == 3 * i);
  CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used) == cudaSuccess && used == n * sizeof(int));
  CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &used) == cudaSuccess && used == 3 * n * sizeof(int));
  CHECK(cudaMemPoolTrimTo(pool, 0) == cudaSuccess);

  // A pool of one's own.
  cudaMemPoolProps props = {};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = 0;
  cudaMemPool_t mine;
  CHECK(cudaMemPoolCreate(&mine, &props) == cudaSuccess);
  int* d = nullptr;
  CHECK(cudaMallocFromPoolAsync(&d, n * sizeof(int), mine, st) == cudaSuccess);
  iota<<<(n + 255) / 256, 256, 0, st>>>(d, n, 5);
  CHECK(cudaMemcpyAsync(h, d, sizeof h, cudaMemcpyDeviceToHost, st) == cudaSuccess);
  CHECK(cudaStreamSynchronize(st) == cudaSuccess);
  CHECK(h[7] == 35 && h[n - 1] == 5 * (n - 1));
  CHECK(cudaMemPoolGetAttribute(mine, cudaMemPoolAttrUsedMemCurrent, &used) == cudaSuccess && used == n * sizeof(int));
  CHECK(cudaFreeAsync(d, st) == cudaSuccess);
  CHECK(cudaMemPoolGetAttribute(mine, cudaMemPoolAttrUsedMemCurrent, &used) == cudaSuccess && used == 0);
  CHECK(cudaMemPoolDestroy(mine) == cudaSuccess);

  // Errors: a double free, a freed pool, the default pool destroyed.
  CHECK(cudaFreeAsync(c, 0) == cudaSuccess);
  CHECK(cudaFreeAsync(c, 0) == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  CHECK(cudaMallocFromPoolAsync(&d, 64, mine, st) == cudaErrorInvalidValue);
  CHECK(cudaMemPoolDestroy(pool) == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  CHECK(cudaStreamDestroy(st) == cudaSuccess);
  std::printf("mempool: all checks passed\n");
  return 0;
}
