// A kernel that spins on a flag nobody sets: on the model it is stopped as a
// runaway kernel (a livelock), the application sees cudaErrorLaunchTimeout
// and rfsim exec leaves the results folder incomplete.
#include <cstdio>

#include <cuda_runtime.h>

__global__ void spin(volatile int* flag) {
  while (*flag == 0) {
  }
}

int main() {
  int* flag = nullptr;
  cudaMalloc(&flag, sizeof(int));
  cudaMemset(flag, 0, sizeof(int));
  spin<<<2, 64>>>(flag);
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("spin: cudaDeviceSynchronize returned %s\n", cudaGetErrorName(e));
  return e == cudaSuccess ? 0 : 1;
}
