// PTX the front end refuses (an instruction it does not model): the
// application gets cudaErrorInvalidPtx at its first call that needs the
// device, and the message names the PTX file and line.
#include <cstdio>

__global__ void odd(int* out, int* p) {
  int r;
  asm volatile("{ .reg .pred q; isspacep.global q, %1; selp.b32 %0, 1, 0, q; }" : "=r"(r) : "l"(p));
  out[0] = r;
}

int main() {
  int* d = nullptr;
  const cudaError_t e = cudaMalloc(&d, 16);
  std::printf("bad_ptx: cudaMalloc returned %s\n", cudaGetErrorName(e));
  return e == cudaErrorInvalidPtx ? 0 : 1;
}
