// Call and return cost: one warp runs a chain of dependent calls to a
// function that returns its argument plus a value (`__noinline__`: a real
// CALL and RET, the arguments and the result through the calling
// convention's registers), and the same chain with the add inline, both
// between two reads of %clock64. The difference per call is what a call and
// its return cost beyond the add. The add is inline PTX (asm volatile) in both
// chains, so nvcc neither folds the chain nor moves it across the clock reads;
// every value starts from global memory.

#define UNROLL 8

__device__ __noinline__ unsigned add_callee(unsigned x, unsigned b) {
  asm volatile("add.u32 %0, %0, %1;" : "+r"(x) : "r"(b));
  return x;
}

extern "C" __global__ void call_chain(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                                      unsigned long long* __restrict__ clk, int iters) {
  const unsigned lane = threadIdx.x;
  unsigned x = in[lane];
  const unsigned b = in[32 + lane];
  const unsigned long long t0 = clock64();
#pragma unroll 1
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < UNROLL; ++k) x = add_callee(x, b);
  }
  const unsigned long long t1 = clock64();
  out[lane] = x;
  clk[lane] = t1 - t0;
}

extern "C" __global__ void add_chain(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                                     unsigned long long* __restrict__ clk, int iters) {
  const unsigned lane = threadIdx.x;
  unsigned x = in[lane];
  const unsigned b = in[32 + lane];
  const unsigned long long t0 = clock64();
#pragma unroll 1
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < UNROLL; ++k) asm volatile("add.u32 %0, %0, %1;" : "+r"(x) : "r"(b));
  }
  const unsigned long long t1 = clock64();
  out[lane] = x;
  clk[lane] = t1 - t0;
}
