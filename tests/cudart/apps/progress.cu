// Many short launches: rfsim exec's line of totals on a terminal (kernels
// launched, warp instructions, their rate), and nothing of it in a pipe or
// with -q. Usage: app LAUNCHES
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

__global__ void work(float* x, int iters) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = x[i];
  for (int k = 0; k < iters; ++k) v = v * 0.5f + 1.0f;
  x[i] = v;
}

int main(int argc, char** argv) {
  const int launches = argc > 1 ? std::atoi(argv[1]) : 100;
  const int n = 64 * 256;
  float* x = nullptr;
  cudaMalloc(&x, n * sizeof(float));
  cudaMemset(x, 0, n * sizeof(float));
  for (int i = 0; i < launches; ++i) work<<<64, 256>>>(x, 16);
  float h = 0;
  cudaMemcpy(&h, x, sizeof(float), cudaMemcpyDeviceToHost);
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("progress: %d launches, x[0] = %.3f, %s\n", launches, h, cudaGetErrorName(e));
  return e == cudaSuccess ? 0 : 1;
}
