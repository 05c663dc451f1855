// Calls the model does not implement: each returns cudaErrorNotSupported,
// which cudaGetLastError returns once more, without ending the process; the
// library names the call and this program's call site. The device works as
// before afterwards.
#include <cstdio>

#include "check.h"

__global__ void twice(int* p) { p[threadIdx.x] *= 2; }

int main() {
  cudaGraph_t graph;
  CHECK(cudaGraphCreate(&graph, 0) == cudaErrorNotSupported);
  CHECK(cudaGetLastError() == cudaErrorNotSupported);
  CHECK(cudaGetLastError() == cudaSuccess);  // not sticky
  cudaIpcMemHandle_t handle;
  CHECK(cudaIpcGetMemHandle(&handle, nullptr) == cudaErrorNotSupported);
  cudaResourceDesc res = {};
  cudaTextureDesc tex = {};
  cudaTextureObject_t obj;
  CHECK(cudaCreateTextureObject(&obj, &res, &tex, nullptr) == cudaErrorNotSupported);
  CHECK(cudaGetLastError() == cudaErrorNotSupported);

  int* d = nullptr;
  CHECK(cudaMalloc(&d, 32 * sizeof(int)) == cudaSuccess);
  int h[32];
  for (int i = 0; i < 32; ++i) h[i] = i;
  CHECK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice) == cudaSuccess);
  twice<<<1, 32>>>(d);
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(h[31] == 62);
  std::printf("unsupported: all checks passed\n");
  return 0;
}
