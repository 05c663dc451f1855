// Built with --default-stream per-thread, so that the copies, memsets, stream
// and event calls below are their _ptds/_ptsz forms; and the smaller calls
// real applications make: 2D copies and memsets, pointer attributes, stream
// flags and priorities, host functions and callbacks on a stream, prefetches
// and advice for managed memory, a kernel's name, device attributes.
#include <cstdio>
#include <cstring>

#include "check.h"

__global__ void add1(int* p, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += 1;
}

void CUDART_CB hostFn(void* user) { ++*static_cast<int*>(user); }
void CUDART_CB callback(cudaStream_t, cudaError_t status, void* user) {
  if (status == cudaSuccess) *static_cast<int*>(user) += 10;
}

int main() {
  // A 2D array: 4 rows of 6 ints in rows of pitch bytes.
  int* d = nullptr;
  size_t pitch = 0;
  CHECK(cudaMallocPitch(reinterpret_cast<void**>(&d), &pitch, 6 * sizeof(int), 4) == cudaSuccess);
  CHECK(cudaMemset2D(d, pitch, 0, 6 * sizeof(int), 4) == cudaSuccess);
  int h[4][6];
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 6; ++c) h[r][c] = 10 * r + c;
  cudaStream_t st;
  CHECK(cudaStreamCreateWithPriority(&st, cudaStreamNonBlocking, -100) == cudaSuccess);
  CHECK(cudaMemcpy2DAsync(d, pitch, h, sizeof h[0], sizeof h[0], 4, cudaMemcpyHostToDevice, st) == cudaSuccess);
  for (int r = 0; r < 4; ++r) add1<<<1, 6, 0, st>>>(reinterpret_cast<int*>(reinterpret_cast<char*>(d) + r * pitch), 6);
  int calls = 0;
  CHECK(cudaLaunchHostFunc(st, hostFn, &calls) == cudaSuccess);
  CHECK(cudaStreamAddCallback(st, callback, &calls, 0) == cudaSuccess);
  std::memset(h, 0, sizeof h);
  CHECK(cudaMemcpy2D(h, sizeof h[0], d, pitch, sizeof h[0], 4, cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(cudaStreamSynchronize(st) == cudaSuccess);
  CHECK(calls == 11);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 6; ++c) CHECK(h[r][c] == 10 * r + c + 1);

  // Streams: flags and the priority, clamped to the device's range.
  unsigned flags = 0;
  int prio = 0, least = 0, greatest = 0;
  CHECK(cudaStreamGetFlags(st, &flags) == cudaSuccess && flags == cudaStreamNonBlocking);
  CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest) == cudaSuccess && greatest <= least);
  CHECK(cudaStreamGetPriority(st, &prio) == cudaSuccess && prio == greatest);
  cudaEvent_t ev;
  CHECK(cudaEventCreate(&ev) == cudaSuccess);
  CHECK(cudaEventRecord(ev, st) == cudaSuccess);
  CHECK(cudaStreamWaitEvent(cudaStreamPerThread, ev, 0) == cudaSuccess);
  CHECK(cudaStreamQuery(st) == cudaSuccess);

  // Pointer attributes.
  cudaPointerAttributes at;
  CHECK(cudaPointerGetAttributes(&at, d) == cudaSuccess && at.type == cudaMemoryTypeDevice && at.devicePointer == d);
  int* m = nullptr;
  CHECK(cudaMallocManaged(&m, 64 * sizeof(int)) == cudaSuccess);
  CHECK(cudaPointerGetAttributes(&at, m + 3) == cudaSuccess && at.type == cudaMemoryTypeManaged && at.hostPointer == m + 3);
  int local = 0;
  CHECK(cudaPointerGetAttributes(&at, &local) == cudaSuccess && at.type == cudaMemoryTypeUnregistered);
  static int reg[64];
  CHECK(cudaHostRegister(reg, sizeof reg, cudaHostRegisterMapped) == cudaSuccess);
  CHECK(cudaPointerGetAttributes(&at, reg + 1) == cudaSuccess && at.type == cudaMemoryTypeHost &&
        at.hostPointer == reg + 1 && at.devicePointer != nullptr);
  void* dev_reg = at.devicePointer;
  CHECK(cudaPointerGetAttributes(&at, dev_reg) == cudaSuccess && at.hostPointer == reg + 1);
  CHECK(cudaHostUnregister(reg) == cudaSuccess);

  // Managed memory: prefetch and advice check their range and move nothing.
  cudaMemLocation loc = {};
  loc.type = cudaMemLocationTypeDevice;
  CHECK(cudaMemPrefetchAsync(m, 64 * sizeof(int), loc, 0, st) == cudaSuccess);
  CHECK(cudaMemAdvise(m, 64 * sizeof(int), cudaMemAdviseSetReadMostly, loc) == cudaSuccess);
  CHECK(cudaMemPrefetchAsync(m, 65 * sizeof(int), loc, 0, st) == cudaErrorInvalidValue);

  const char* name = nullptr;
  CHECK(cudaFuncGetName(&name, add1) == cudaSuccess && std::strcmp(name, "_Z4add1Pii") == 0);
  // The header's occupancy helper, over the calls it makes.
  int min_grid = 0, block = 0;
  CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, add1) == cudaSuccess);
  CHECK(block >= 32 && block <= 1024 && block % 32 == 0 && min_grid > 0);
  int attr = -1;
  CHECK(cudaDeviceGetAttribute(&attr, cudaDevAttrStreamPrioritiesSupported, 0) == cudaSuccess && attr == 1);
  CHECK(cudaDeviceGetAttribute(&attr, cudaDevAttrMaxTexture2DWidth, 0) == cudaSuccess && attr == 0);
  CHECK(cudaDeviceGetAttribute(&attr, cudaDevAttrClusterLaunch, 0) == cudaSuccess && attr == 0);
  unsigned dflags = 0;
  CHECK(cudaGetDeviceFlags(&dflags) == cudaSuccess && (dflags & cudaDeviceMapHost));
  CHECK(cudaStreamDestroy(st) == cudaSuccess);
  std::printf("per_thread: all checks passed\n");
  return 0;
}
