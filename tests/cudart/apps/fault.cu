// A kernel that writes far outside its allocation: the application sees
// cudaErrorIllegalAddress, as on hardware, and every later call too.
#include <cstdio>

__global__ void wild(int* p) { p[threadIdx.x + (1 << 24)] = 1; }

int main() {
  int* p;
  if (cudaMalloc(&p, 64 * sizeof(int)) != cudaSuccess) return 2;
  wild<<<1, 32>>>(p);
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("fault: cudaDeviceSynchronize returned %s\n", cudaGetErrorName(e));
  if (e != cudaErrorIllegalAddress) return 1;
  if (cudaMalloc(&p, 4) != cudaErrorIllegalAddress) return 1;  // sticky
  return 0;
}
