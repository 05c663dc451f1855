// Microbenchmark: register-file bank conflicts. One warp runs 8 independent
// streams of 3-source fp32 FMAs (inline PTX, asm volatile) between two
// %clock64 reads, in three variants that differ only in which registers the
// sources name:
//   regbank_distinct  d_j = fma(a_j, b_j, c_j): three different registers;
//                     their banks are whatever the register allocator gives
//                     (unknown from the source);
//   regbank_pair      d_j = fma(a_j, a_j, c_j): two sources in one register;
//   regbank_same      d_j = fma(a_j, a_j, a_j): all three sources in one
//                     register, so in one bank under any allocation and any
//                     bank function of the register number.
// What the CUDA source controls: how many distinct registers an instruction
// reads (3, 2 or 1). What it does not: the physical register numbers, hence
// the banks, of distinct registers; they come from the back end's allocation
// of the PTX virtual registers. A 64-bit variant (regbank_fp64) reads aligned
// register pairs: each operand spans two adjacent registers (two banks).
// The streams' destinations d_j are rewritten every time (no chain), so the
// only dependences are write-after-write on d_j: the timing is issue- and
// operand-bound, not latency-bound. The final d_j are summed per lane.

#define UNROLL 16  // passes of the 8 streams per loop iteration: 128 FMAs

#define FMA8(FMT, T, CON)                                                                       \
  asm volatile(FMT                                                                            \
               : "=" CON(d[0]), "=" CON(d[1]), "=" CON(d[2]), "=" CON(d[3]), "=" CON(d[4]),     \
                 "=" CON(d[5]), "=" CON(d[6]), "=" CON(d[7])                                    \
               : CON(a[0]), CON(a[1]), CON(a[2]), CON(a[3]), CON(a[4]), CON(a[5]), CON(a[6]),   \
                 CON(a[7]), CON(b[0]), CON(b[1]), CON(b[2]), CON(b[3]), CON(b[4]), CON(b[5]),   \
                 CON(b[6]), CON(b[7]), CON(c[0]), CON(c[1]), CON(c[2]), CON(c[3]), CON(c[4]),   \
                 CON(c[5]), CON(c[6]), CON(c[7]))

// Operand numbering: d_j = %j, a_j = %(8+j), b_j = %(16+j), c_j = %(24+j).
#define DISTINCT \
  "fma.rn.f32 %0, %8, %16, %24;\n\t" \
  "fma.rn.f32 %1, %9, %17, %25;\n\t" \
  "fma.rn.f32 %2, %10, %18, %26;\n\t" \
  "fma.rn.f32 %3, %11, %19, %27;\n\t" \
  "fma.rn.f32 %4, %12, %20, %28;\n\t" \
  "fma.rn.f32 %5, %13, %21, %29;\n\t" \
  "fma.rn.f32 %6, %14, %22, %30;\n\t" \
  "fma.rn.f32 %7, %15, %23, %31;\n\t"
#define PAIR \
  "fma.rn.f32 %0, %8, %8, %24;\n\t" \
  "fma.rn.f32 %1, %9, %9, %25;\n\t" \
  "fma.rn.f32 %2, %10, %10, %26;\n\t" \
  "fma.rn.f32 %3, %11, %11, %27;\n\t" \
  "fma.rn.f32 %4, %12, %12, %28;\n\t" \
  "fma.rn.f32 %5, %13, %13, %29;\n\t" \
  "fma.rn.f32 %6, %14, %14, %30;\n\t" \
  "fma.rn.f32 %7, %15, %15, %31;\n\t"
#define SAME \
  "fma.rn.f32 %0, %8, %8, %8;\n\t" \
  "fma.rn.f32 %1, %9, %9, %9;\n\t" \
  "fma.rn.f32 %2, %10, %10, %10;\n\t" \
  "fma.rn.f32 %3, %11, %11, %11;\n\t" \
  "fma.rn.f32 %4, %12, %12, %12;\n\t" \
  "fma.rn.f32 %5, %13, %13, %13;\n\t" \
  "fma.rn.f32 %6, %14, %14, %14;\n\t" \
  "fma.rn.f32 %7, %15, %15, %15;\n\t"
#define DIST64 \
  "fma.rn.f64 %0, %8, %16, %24;\n\t" \
  "fma.rn.f64 %1, %9, %17, %25;\n\t" \
  "fma.rn.f64 %2, %10, %18, %26;\n\t" \
  "fma.rn.f64 %3, %11, %19, %27;\n\t" \
  "fma.rn.f64 %4, %12, %20, %28;\n\t" \
  "fma.rn.f64 %5, %13, %21, %29;\n\t" \
  "fma.rn.f64 %6, %14, %22, %30;\n\t" \
  "fma.rn.f64 %7, %15, %23, %31;\n\t"

#define REGBANK_KERNEL(NAME, T, CON, FMT)                                                        \
  extern "C" __global__ void NAME(const T* __restrict__ in, T* __restrict__ out,                 \
                                  unsigned long long* __restrict__ clk, int iters) {             \
    const unsigned lane = threadIdx.x;                                                           \
    T a[8], b[8], c[8], d[8];                                                                    \
    _Pragma("unroll") for (int j = 0; j < 8; ++j) {                                              \
      a[j] = in[(3 * j) * 32 + lane];                                                            \
      b[j] = in[(3 * j + 1) * 32 + lane];                                                        \
      c[j] = in[(3 * j + 2) * 32 + lane];                                                        \
      d[j] = 0;                                                                                  \
    }                                                                                            \
    const unsigned long long t0 = clock64();                                                     \
    _Pragma("unroll 1") for (int i = 0; i < iters; ++i) {                                        \
      _Pragma("unroll") for (int k = 0; k < UNROLL; ++k) { FMA8(FMT, T, CON); }                  \
    }                                                                                            \
    const unsigned long long t1 = clock64();                                                     \
    T sum = 0;                                                                                   \
    _Pragma("unroll") for (int j = 0; j < 8; ++j) sum += d[j];                                   \
    out[lane] = sum;                                                                             \
    clk[lane] = t1 - t0;                                                                         \
  }

REGBANK_KERNEL(regbank_distinct, float, "f", DISTINCT)
REGBANK_KERNEL(regbank_pair, float, "f", PAIR)
REGBANK_KERNEL(regbank_same, float, "f", SAME)
REGBANK_KERNEL(regbank_fp64, double, "d", DIST64)
