// thrust's device-wide algorithms (CUB underneath): sort, reduce and scan on
// the model, and what the device reports to them: compute capability 7.5,
// the lowest the PTX targets, on a configuration that models a 7.0 GPU, and
// the PTX's virtual architecture as cudaFuncGetAttributes' ptxVersion.
#include <thrust/device_vector.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sort.h>

#include <cstdio>

#include "check.h"

__global__ void probe() {}

int main() {
  cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, 0) == cudaSuccess);
  CHECK(p.major == 7 && p.minor == 5);
  cudaFuncAttributes fa;
  CHECK(cudaFuncGetAttributes(&fa, probe) == cudaSuccess);
  CHECK(fa.ptxVersion == 75 && fa.binaryVersion == 75);

  const int n = 1000;
  thrust::device_vector<int> v(n);
  for (int i = 0; i < n; ++i) v[i] = (i * 7919) % n;  // a permutation of 0..n-1
  thrust::sort(v.begin(), v.end());
  for (int i = 0; i < n; i += 97) CHECK(v[i] == i);
  const int sum = thrust::reduce(v.begin(), v.end());
  CHECK(sum == n * (n - 1) / 2);
  thrust::inclusive_scan(v.begin(), v.end(), v.begin());
  CHECK(v[n - 1] == sum && v[10] == 55);
  std::printf("thrust_algos: all checks passed\n");
  return 0;
}
