// Microbenchmarks: dependent-instruction latency per execution-unit class,
// and shared/global memory latency by pointer chasing. One warp (one block of
// 32 threads) runs a chain of dependent operations between two reads of
// %clock64; every lane writes its own clock delta and the chain's final value.
//
// The chains are inline PTX (asm volatile): nvcc can neither fold them (every
// operand comes from a kernel argument or global memory), nor reorder them
// against each other or against the %clock64 reads (volatile asm keeps its
// order). Each chain is `iters` passes of an unrolled block of UNROLL
// operations; the loop adds 3 instructions (add, setp, bra) per pass that do
// not depend on the chain.

#define UNROLL 64

// Chain kernel for one operation class. T: element type; CON: the asm
// constraint of T ("r" u32, "f" f32, "d" f64); OPS: operations per asm
// statement; ASM: the statement, with %0 the chain value, %1 = b, %2 = c.
#define LAT_KERNEL(NAME, T, CON, OPS, ASM)                                                         \
  extern "C" __global__ void NAME(const T* __restrict__ in, T* __restrict__ out,                   \
                                  unsigned long long* __restrict__ clk, int iters, T b, T c) {     \
    const unsigned lane = threadIdx.x;                                                             \
    T x = in[lane];                                                                                \
    const unsigned long long t0 = clock64();                                                       \
    _Pragma("unroll 1") for (int i = 0; i < iters; ++i) {                                          \
      _Pragma("unroll") for (int k = 0; k < UNROLL / (OPS); ++k) {                                 \
        asm volatile(ASM : "+" CON(x) : CON(b), CON(c));                                           \
      }                                                                                            \
    }                                                                                              \
    const unsigned long long t1 = clock64();                                                       \
    out[lane] = x;                                                                                 \
    clk[lane] = t1 - t0;                                                                           \
  }

// Integer unit (c unused where the operation has two operands).
LAT_KERNEL(lat_int_add, unsigned, "r", 1, "add.u32 %0, %0, %1;")
LAT_KERNEL(lat_int_mul, unsigned, "r", 1, "mul.lo.u32 %0, %0, %1;")
LAT_KERNEL(lat_int_mad, unsigned, "r", 1, "mad.lo.u32 %0, %0, %1, %2;")
LAT_KERNEL(lat_int_div, unsigned, "r", 1, "div.u32 %0, %0, %1;")
// FP32 unit.
LAT_KERNEL(lat_fp32_add, float, "f", 1, "add.rn.f32 %0, %0, %1;")
LAT_KERNEL(lat_fp32_mul, float, "f", 1, "mul.rn.f32 %0, %0, %1;")
LAT_KERNEL(lat_fp32_fma, float, "f", 1, "fma.rn.f32 %0, %0, %1, %2;")
LAT_KERNEL(lat_fp32_div, float, "f", 1, "div.rn.f32 %0, %1, %0;")  // x <- b / x: period 2, stays bounded
// Special-function unit (the MUFU instructions __sinf, rsqrtf, exp2f/log2f
// become under -use_fast_math).
LAT_KERNEL(lat_sfu_sin, float, "f", 1, "sin.approx.f32 %0, %0;")
LAT_KERNEL(lat_sfu_rsqrt, float, "f", 1, "rsqrt.approx.f32 %0, %0;")
LAT_KERNEL(lat_sfu_ex2_lg2, float, "f", 2, "lg2.approx.f32 %0, %0;\n\tex2.approx.f32 %0, %0;")
// FP64 unit.
LAT_KERNEL(lat_fp64_add, double, "d", 1, "add.rn.f64 %0, %0, %1;")
LAT_KERNEL(lat_fp64_fma, double, "d", 1, "fma.rn.f64 %0, %0, %1, %2;")
LAT_KERNEL(lat_fp64_div, double, "d", 1, "div.rn.f64 %0, %1, %0;")

// Shared-memory latency: a pointer chase through shared memory. next[] holds
// word indices forming one cycle; the kernel turns them into shared-window
// byte addresses, so each load's address is the previous load's value and
// nothing else (no address arithmetic inside the chain). All 32 lanes follow
// the same chain: every load is a broadcast of one word, no bank conflict.
#define SMEM_WORDS 1024
extern "C" __global__ void lat_smem_chase(const unsigned* __restrict__ next, unsigned* __restrict__ out,
                                          unsigned long long* __restrict__ clk, int iters, unsigned start) {
  __shared__ unsigned s[SMEM_WORDS];
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(s));
  for (unsigned i = threadIdx.x; i < SMEM_WORDS; i += blockDim.x) s[i] = base + 4u * next[i];
  __syncthreads();
  unsigned p = base + 4u * start;
  const unsigned long long t0 = clock64();
#pragma unroll 1
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < UNROLL; ++k) asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p));
  }
  const unsigned long long t1 = clock64();
  out[threadIdx.x] = (p - base) / 4u;  // the word index the chase ended on
  clk[threadIdx.x] = t1 - t0;
}

// Global-memory latency: the same chase through global memory. chain[] holds
// absolute device addresses (the host writes them), one per 128-byte line.
// Plain ld.global: which level it hits is for the memory hierarchy to decide.
extern "C" __global__ void lat_global_chase(const unsigned long long* __restrict__ chain,
                                            unsigned long long* __restrict__ out,
                                            unsigned long long* __restrict__ clk, int iters) {
  unsigned long long p = reinterpret_cast<unsigned long long>(chain);
  const unsigned long long t0 = clock64();
#pragma unroll 1
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < UNROLL; ++k) asm volatile("ld.global.u64 %0, [%0];" : "+l"(p));
  }
  const unsigned long long t1 = clock64();
  out[threadIdx.x] = p;
  clk[threadIdx.x] = t1 - t0;
}
