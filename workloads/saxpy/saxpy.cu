// y = a * x + y (BLAS level 1), a grid-stride loop so that any grid covers
// any n.
extern "C" __global__ void saxpy(int n, float a, const float* __restrict__ x, float* __restrict__ y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    y[i] = a * x[i] + y[i];
  }
}
