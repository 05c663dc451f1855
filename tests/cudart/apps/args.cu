// Kernel arguments of several types and sizes, device printf, the device's
// properties, function attributes, occupancy and the errors of bad calls.
// Run by tests/cudart/run_app.sh; exits 0 when every check passes.
#include <cstdio>
#include <cstring>

#include "check.h"

struct Mixed {
  int a;
  double b;
  char c;
};

__global__ void args(long long* out, int i, unsigned char u8, short s16, float f, double d, long long ll, Mixed m,
                     float4 v, const int* p) {
  if (threadIdx.x == 0 && blockIdx.x == 0) printf("device printf: i=%d f=%.2f d=%.3f\n", i, f, d);
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t] = t + i + u8 + s16 + (long long)(f * 4) + (long long)(d * 8) + ll + m.a + (long long)(m.b * 2) + m.c +
           (long long)(v.x + v.y + v.z + v.w) + p[t % 4];
}

int main(int argc, char** argv) {
  const int sms = argc > 1 ? std::atoi(argv[1]) : 80;
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0) == cudaSuccess);
  CHECK(prop.multiProcessorCount == sms);
  CHECK(prop.warpSize == 32);
  CHECK(std::strncmp(prop.name, "rfsim", 5) == 0);
  int v = 0;
  CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0) == cudaSuccess && v == sms);
  int n = 0;
  CHECK(cudaGetDeviceCount(&n) == cudaSuccess && n == 1);

  const int N = 256;
  long long* out;
  int* p;
  CHECK(cudaMalloc(&out, N * sizeof(long long)) == cudaSuccess);
  CHECK(cudaMalloc(&p, 4 * sizeof(int)) == cudaSuccess);
  const int hp[4] = {1000, 2000, 3000, 4000};
  CHECK(cudaMemcpy(p, hp, sizeof hp, cudaMemcpyHostToDevice) == cudaSuccess);
  const Mixed m{7, 2.5, 3};
  const float4 vec = make_float4(1, 2, 3, 4);
  args<<<N / 64, 64>>>(out, 5, 200, -300, 1.25f, 0.5, 1ll << 40, m, vec, p);
  CHECK(cudaGetLastError() == cudaSuccess);
  long long h[N];
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost) == cudaSuccess);
  for (int t = 0; t < N; ++t)
    CHECK(h[t] == t + 5 + 200 - 300 + 5 + 4 + (1ll << 40) + 7 + 5 + 3 + 10 + hp[t % 4]);

  cudaFuncAttributes fa;
  CHECK(cudaFuncGetAttributes(&fa, args) == cudaSuccess);
  CHECK(fa.numRegs > 0 && fa.numRegs <= 255);
  int blocks = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, args, 64, 0) == cudaSuccess && blocks > 0);

  // Bad calls: an error code, the context lives on.
  args<<<1, 2048>>>(out, 0, 0, 0, 0, 0, 0, m, vec, p);
  CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration);
  CHECK(cudaGetLastError() == cudaSuccess);
  // More dynamic shared memory than the kernel may ask for (48 KB without
  // the opt-in attribute): an invalid argument, the context lives.
  args<<<1, 64, 4u << 20>>>(out, 0, 0, 0, 0, 0, 0, m, vec, p);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  // A host function that is not a kernel.
  void* none[1] = {nullptr};
  CHECK(cudaLaunchKernel((const void*)&main, dim3(1), dim3(1), none, 0, nullptr) == cudaErrorInvalidDeviceFunction);
  cudaGetLastError();
  CHECK(cudaMemcpy(h, nullptr, 8, cudaMemcpyDeviceToHost) != cudaSuccess);
  CHECK(cudaMemcpy(h, (void*)0x1234, 8, cudaMemcpyDeviceToHost) == cudaErrorInvalidValue);
  CHECK(cudaFree(p) == cudaSuccess);
  CHECK(cudaFree(p) == cudaErrorInvalidValue);  // freed twice
  CHECK(cudaMemcpy(h, p, 8, cudaMemcpyDeviceToHost) == cudaErrorInvalidValue);  // freed
  CHECK(std::strcmp(cudaGetErrorName(cudaErrorIllegalAddress), "cudaErrorIllegalAddress") == 0);
  CHECK(std::strcmp(cudaGetErrorString(cudaSuccess), "no error") == 0);
  cudaGetLastError();
  // An unimplemented call says so and returns cudaErrorNotSupported.
  cudaGraph_t g;
  CHECK(cudaGraphCreate(&g, 0) == cudaErrorNotSupported);
  CHECK(cudaFree(out) == cudaSuccess);
  std::printf("args: all checks passed\n");
  return 0;
}
