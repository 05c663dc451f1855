// Streams and events: an event's time is simulated time, so a timing run
// measures the kernel's modelled duration (argv[1] == "timing": it must be
// positive; functional runs measure 0).
#include <cstdio>
#include <cstring>

#include "check.h"

__global__ void work(float* x, int n, int reps) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  for (int r = 0; r < reps; ++r) v = v * 1.0001f + 0.5f;
  x[i] = v;
}

int main(int argc, char** argv) {
  const bool timing = argc > 1 && std::strcmp(argv[1], "timing") == 0;
  const int n = 4096;
  float* x;
  CHECK(cudaMalloc(&x, n * sizeof(float)) == cudaSuccess);
  CHECK(cudaMemset(x, 0, n * sizeof(float)) == cudaSuccess);
  cudaStream_t s1, s2;
  CHECK(cudaStreamCreate(&s1) == cudaSuccess);
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking) == cudaSuccess);
  cudaEvent_t a, b, c;
  CHECK(cudaEventCreate(&a) == cudaSuccess && cudaEventCreate(&b) == cudaSuccess && cudaEventCreate(&c) == cudaSuccess);
  CHECK(cudaEventRecord(a, s1) == cudaSuccess);
  work<<<n / 128, 128, 0, s1>>>(x, n, 16);
  CHECK(cudaEventRecord(b, s1) == cudaSuccess);
  work<<<n / 128, 128, 0, s2>>>(x, n, 64);
  CHECK(cudaEventRecord(c, s2) == cudaSuccess);
  CHECK(cudaStreamWaitEvent(s2, b, 0) == cudaSuccess);
  CHECK(cudaStreamSynchronize(s1) == cudaSuccess && cudaStreamSynchronize(s2) == cudaSuccess);
  // The default stream's special handles (thrust synchronises on cudaStreamLegacy).
  CHECK(cudaStreamSynchronize(cudaStreamLegacy) == cudaSuccess);
  CHECK(cudaStreamSynchronize(cudaStreamPerThread) == cudaSuccess);
  CHECK(cudaStreamQuery(cudaStreamPerThread) == cudaSuccess);
  CHECK(cudaEventSynchronize(c) == cudaSuccess);
  float ab = -1, bc = -1;
  CHECK(cudaEventElapsedTime(&ab, a, b) == cudaSuccess);
  CHECK(cudaEventElapsedTime(&bc, b, c) == cudaSuccess);
  std::printf("events: first kernel %.6f ms, second %.6f ms\n", ab, bc);
  if (timing) CHECK(ab > 0 && bc > ab);  // four times the work takes longer
  else CHECK(ab == 0 && bc == 0);
  cudaStream_t dead = s1;
  CHECK(cudaStreamDestroy(s1) == cudaSuccess);
  CHECK(cudaStreamSynchronize(dead) == cudaErrorInvalidResourceHandle);
  CHECK(cudaEventDestroy(a) == cudaSuccess && cudaEventDestroy(b) == cudaSuccess && cudaEventDestroy(c) == cudaSuccess);
  CHECK(cudaStreamDestroy(s2) == cudaSuccess);
  std::printf("events: all checks passed\n");
  return 0;
}
