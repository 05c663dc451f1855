// Relocatable device code: the kernel calls a device function of another
// translation unit (built with -rdc=true and linked by nvcc).
#include <cstdio>

__device__ int polynomial(int x);
extern __device__ int offset;

__global__ void apply(int* out) { out[threadIdx.x] = polynomial(threadIdx.x) + offset; }

int main() {
  int* d;
  cudaMalloc(&d, 64 * sizeof(int));
  apply<<<1, 64>>>(d);
  int h[64];
  if (cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
  for (int x = 0; x < 64; ++x)
    if (h[x] != 3 * x * x + 2 * x + 1 + 7) {
      std::printf("FAIL rdc: out[%d] = %d\n", x, h[x]);
      return 1;
    }
  std::printf("rdc: all checks passed\n");
  return 0;
}
