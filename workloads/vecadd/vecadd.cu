// c = a + b, one thread per element: the smallest complete kernel (index
// arithmetic, a bounds check, two loads and a store).
extern "C" __global__ void vecadd(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    c[i] = a[i] + b[i];
  }
}
