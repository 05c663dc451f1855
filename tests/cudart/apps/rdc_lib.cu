// The other translation unit of rdc_main.cu.
__device__ int offset = 7;
__device__ __noinline__ int polynomial(int x) { return 3 * x * x + 2 * x + 1; }
