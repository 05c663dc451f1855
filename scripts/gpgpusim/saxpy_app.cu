// saxpy as a stand-alone CUDA application, for timing rfsim exec against
// GPGPU-Sim on the same binary (scripts/gpgpusim_compare.sh). The kernel is
// workloads/saxpy's, included; the size is its --large one: 1M elements, one per thread,
// 4096 blocks of 256. Checks the result on the CPU; exit status 0 when it matches.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../../workloads/saxpy/saxpy.cu"  // the workload's kernel itself

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 1 << 20;
  const float a = 2.5f;
  std::vector<float> x(n), y(n);
  unsigned s = 2;
  for (int i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    x[i] = float(s >> 8) / float(1 << 24) * 2.0f - 1.0f;
    s = s * 1664525u + 1013904223u;
    y[i] = float(s >> 8) / float(1 << 24) * 2.0f - 1.0f;
  }
  float *dx, *dy;
  cudaMalloc(&dx, n * sizeof(float));
  cudaMalloc(&dy, n * sizeof(float));
  cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  const int block = 256, grid = (n + block - 1) / block;
  saxpy<<<grid, block>>>(n, a, dx, dy);
  std::vector<float> out(n);
  cudaMemcpy(out.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) {
    printf("saxpy: CUDA error %s\n", cudaGetErrorString(err));
    return 1;
  }
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    if (std::fabs(out[i] - std::fma(a, x[i], y[i])) > 1e-6f) ++bad;
  }
  printf("saxpy n=%d: %d mismatches\n", n, bad);
  cudaFree(dx);
  cudaFree(dy);
  return bad == 0 ? 0 : 1;
}
