// Exits in the middle, without cudaDeviceReset: the results are still whole.
// With an argument it exits before any CUDA call (status 4), so it writes no
// results at all.
#include <cstdio>
#include <cstdlib>

__global__ void inc(int* p) { p[threadIdx.x] += 1; }

int main(int argc, char**) {
  if (argc > 1) {
    std::printf("exit_midway: exiting before any CUDA call\n");
    return 4;
  }
  int* p;
  cudaMalloc(&p, 32 * sizeof(int));
  cudaMemset(p, 0, 32 * sizeof(int));
  inc<<<1, 32>>>(p);
  int h[32];
  cudaMemcpy(h, p, sizeof h, cudaMemcpyDeviceToHost);
  std::printf("exit_midway: h[31] = %d, exiting with status 3\n", h[31]);
  std::exit(h[31] == 1 ? 3 : 1);
}
