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

// One chain kernel: `iters` passes of UNROLL steps, each STEP (a statement
// that updates x from b), between two reads of %clock64.
#define CHAIN_KERNEL(NAME, STEP)                                                                    \
  extern "C" __global__ void NAME(const unsigned* __restrict__ in, unsigned* __restrict__ out,      \
                                  unsigned long long* __restrict__ clk, int iters) {                \
    const unsigned lane = threadIdx.x;                                                              \
    unsigned x = in[lane];                                                                          \
    const unsigned b = in[32 + lane];                                                               \
    const unsigned long long t0 = clock64();                                                        \
    _Pragma("unroll 1") for (int i = 0; i < iters; ++i) {                                           \
      _Pragma("unroll") for (int k = 0; k < UNROLL; ++k) { STEP; }                                  \
    }                                                                                               \
    const unsigned long long t1 = clock64();                                                        \
    out[lane] = x;                                                                                  \
    clk[lane] = t1 - t0;                                                                            \
  }

CHAIN_KERNEL(call_chain, x = add_callee(x, b))
CHAIN_KERNEL(add_chain, asm volatile("add.u32 %0, %0, %1;" : "+r"(x) : "r"(b)))
