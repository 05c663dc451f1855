// Tiled SGEMM as a stand-alone CUDA application, for timing rfsim exec against
// GPGPU-Sim on the same binary (scripts/gpgpusim_compare.sh). The kernel is
// workloads/sgemm's, included (16 x 16 shared-memory tiles); the size is its --large one,
// 256 x 256 x 256. Checks the result on the CPU; exit status 0 when it matches.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../../workloads/sgemm/sgemm.cu"  // the workload's kernel itself

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 256;
  const int M = n, N = n, K = n;
  const float alpha = 1.5f, beta = -0.5f;
  std::vector<float> A(size_t(M) * K), B(size_t(K) * N), C(size_t(M) * N);
  unsigned s = 4;
  auto next = [&s] {
    s = s * 1664525u + 1013904223u;
    return float(s >> 8) / float(1 << 24) * 2.0f - 1.0f;
  };
  for (auto& v : A) v = next();
  for (auto& v : B) v = next();
  for (auto& v : C) v = next();
  float *dA, *dB, *dC;
  cudaMalloc(&dA, A.size() * sizeof(float));
  cudaMalloc(&dB, B.size() * sizeof(float));
  cudaMalloc(&dC, C.size() * sizeof(float));
  cudaMemcpy(dA, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dB, B.data(), B.size() * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dC, C.data(), C.size() * sizeof(float), cudaMemcpyHostToDevice);
  dim3 block(TILE, TILE), grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
  sgemm_tiled<<<grid, block>>>(M, N, K, alpha, dA, dB, beta, dC);
  std::vector<float> out(C.size());
  cudaMemcpy(out.data(), dC, out.size() * sizeof(float), cudaMemcpyDeviceToHost);
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) {
    printf("sgemm: CUDA error %s\n", cudaGetErrorString(err));
    return 1;
  }
  int bad = 0;
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      double acc = 0.0;
      for (int k = 0; k < K; ++k) acc += double(A[size_t(i) * K + k]) * B[size_t(k) * N + j];
      double ref = alpha * acc + beta * C[size_t(i) * N + j];
      if (std::fabs(out[size_t(i) * N + j] - ref) > 1e-4 * std::fabs(ref) + 2e-6 * K) ++bad;
    }
  }
  printf("sgemm %dx%dx%d: %d mismatches\n", M, N, K, bad);
  cudaFree(dA);
  cudaFree(dB);
  cudaFree(dC);
  return bad == 0 ? 0 : 1;
}
