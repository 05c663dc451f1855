// Mapped host memory: a kernel writes page-locked memory from cudaHostAlloc
// (cudaHostAllocMapped) and reads and writes the application's own memory
// registered with cudaHostRegister (cudaHostRegisterMapped), through the
// device pointers cudaHostGetDevicePointer gives; the host reads the
// results without a copy. Then the errors of registering twice and
// unregistering what was never registered.
#include <cstdio>
#include <cstdlib>

#include "check.h"

__global__ void fill(int* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 3 * i + 1;
}

__global__ void scale(const float* in, float* out, int n, unsigned* count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = 2.0f * in[i];
    if (in[i] > 100.0f) atomicAdd(count, 1u);
  }
}

int main() {
  int can_map = 0;
  CHECK(cudaDeviceGetAttribute(&can_map, cudaDevAttrCanMapHostMemory, 0) == cudaSuccess && can_map == 1);
  CHECK(cudaSetDeviceFlags(cudaDeviceMapHost) == cudaSuccess);

  // Page-locked, mapped.
  const int n = 1024;
  int* h = nullptr;
  CHECK(cudaHostAlloc(reinterpret_cast<void**>(&h), n * sizeof(int), cudaHostAllocMapped) == cudaSuccess);
  int* d = nullptr;
  CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&d), h, 0) == cudaSuccess);
  fill<<<n / 256, 256>>>(d, n);
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  for (int i = 0; i < n; ++i) CHECK(h[i] == 3 * i + 1);
  CHECK(cudaFreeHost(h) == cudaSuccess);

  // The application's own memory, registered.
  float* in = static_cast<float*>(std::aligned_alloc(4096, n * sizeof(float)));
  // out starts 32 bytes past a page, so that each warp's 128 bytes of it
  // straddle two lines whatever address malloc would have given.
  float* out_base = static_cast<float*>(std::aligned_alloc(4096, (n + 1024) * sizeof(float)));
  float* out = out_base + 8;
  unsigned* count = static_cast<unsigned*>(std::malloc(sizeof(unsigned)));
  for (int i = 0; i < n; ++i) in[i] = 0.25f * i;
  *count = 0;
  CHECK(cudaHostRegister(in, n * sizeof(float), cudaHostRegisterMapped) == cudaSuccess);
  CHECK(cudaHostRegister(out, n * sizeof(float), cudaHostRegisterMapped) == cudaSuccess);
  CHECK(cudaHostRegister(count, sizeof(unsigned), cudaHostRegisterMapped) == cudaSuccess);
  float *din = nullptr, *dout = nullptr;
  unsigned* dcount = nullptr;
  CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&din), in, 0) == cudaSuccess);
  CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&dout), out, 0) == cudaSuccess);
  CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&dcount), count, 0) == cudaSuccess);
  float* mid = nullptr;  // an interior pointer maps to the same offset
  CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&mid), in + 10, 0) == cudaSuccess && mid == din + 10);
  scale<<<n / 128, 128>>>(din, dout, n, dcount);
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  for (int i = 0; i < n; ++i) CHECK(out[i] == 0.5f * i);
  CHECK(*count == static_cast<unsigned>(n - 401));  // in[i] > 100 for i > 400
  // A copy from registered memory reads the host's bytes.
  float first[4];
  CHECK(cudaMemcpy(first, dout + 4, sizeof first, cudaMemcpyDeviceToHost) == cudaSuccess && first[0] == 2.0f);

  // Errors.
  CHECK(cudaHostRegister(in + 8, 64, cudaHostRegisterMapped) == cudaErrorHostMemoryAlreadyRegistered);
  CHECK(cudaGetLastError() == cudaErrorHostMemoryAlreadyRegistered);
  CHECK(cudaHostUnregister(in) == cudaSuccess);
  CHECK(cudaHostUnregister(in) == cudaErrorHostMemoryNotRegistered);
  CHECK(cudaGetLastError() == cudaErrorHostMemoryNotRegistered);
  CHECK(cudaHostUnregister(out) == cudaSuccess);
  CHECK(cudaHostUnregister(count) == cudaSuccess);
  std::free(in);
  std::free(out_base);
  std::free(count);
  std::printf("mapped: all checks passed\n");
  return 0;
}
