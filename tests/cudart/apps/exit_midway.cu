// Exits in the middle, without cudaDeviceReset: the results are still whole.
#include <cstdio>
#include <cstdlib>

__global__ void inc(int* p) { p[threadIdx.x] += 1; }

int main() {
  int* p;
  cudaMalloc(&p, 32 * sizeof(int));
  cudaMemset(p, 0, 32 * sizeof(int));
  inc<<<1, 32>>>(p);
  int h[32];
  cudaMemcpy(h, p, sizeof h, cudaMemcpyDeviceToHost);
  std::printf("exit_midway: h[31] = %d, exiting with status 3\n", h[31]);
  std::exit(h[31] == 1 ? 3 : 1);
}
