// Microbenchmark: register-file bank conflicts. One warp runs 8 independent
// accumulator chains of fp32 FMAs (inline PTX, asm volatile) between two
// %clock64 reads. 8 chains of a 5-cycle FMA leave the warp issue-bound (one
// instruction per cycle), so what limits the loop is how fast the operand
// collector can read each FMA's sources from the register-file banks. The
// variants differ only in how many distinct registers an FMA reads:
//   regbank_distinct  d_j = fma(a_j, b_j, d_j): 3 registers;
//   regbank_pair      d_j = fma(a_j, a_j, d_j): 2 registers;
//   regbank_same      d_j = fma(d_j, d_j, d_j): 1 register (d_j starts in
//                     [-1, 0], where d*d + d stays in [-0.25, 0]);
//   regbank_fp64      d_j = fma(a_j, b_j, d_j) in fp64: 3 aligned pairs,
//                     6 registers.
// The CUDA source cannot choose physical registers (the back end allocates
// them), so the banks of distinct registers are not controlled here. The
// conflicts are isolated by the configuration instead: the same code under
// regfile.num_banks 1 (every read in one bank: an FMA takes one cycle per
// distinct register with one read port), under read_ports_per_bank 4 (no
// conflicts), and on the default 16 banks (whatever the allocation gives;
// timing.json counts the conflicts). docs/workloads.md has the table.

#define UNROLL 16  // passes of the 8 chains per loop iteration: 128 FMAs

#define FMA8(FMT, CON)                                                                          \
  asm volatile(FMT                                                                            \
               : "+" CON(d[0]), "+" CON(d[1]), "+" CON(d[2]), "+" CON(d[3]), "+" CON(d[4]),     \
                 "+" CON(d[5]), "+" CON(d[6]), "+" CON(d[7])                                    \
               : CON(a[0]), CON(a[1]), CON(a[2]), CON(a[3]), CON(a[4]), CON(a[5]), CON(a[6]),   \
                 CON(a[7]), CON(b[0]), CON(b[1]), CON(b[2]), CON(b[3]), CON(b[4]), CON(b[5]),   \
                 CON(b[6]), CON(b[7]))

// Operand numbering: d_j = %j (read and written), a_j = %(8+j), b_j = %(16+j).
#define DISTINCT \
  "fma.rn.f32 %0, %8, %16, %0;\n\t" \
  "fma.rn.f32 %1, %9, %17, %1;\n\t" \
  "fma.rn.f32 %2, %10, %18, %2;\n\t" \
  "fma.rn.f32 %3, %11, %19, %3;\n\t" \
  "fma.rn.f32 %4, %12, %20, %4;\n\t" \
  "fma.rn.f32 %5, %13, %21, %5;\n\t" \
  "fma.rn.f32 %6, %14, %22, %6;\n\t" \
  "fma.rn.f32 %7, %15, %23, %7;\n\t"
#define PAIR \
  "fma.rn.f32 %0, %8, %8, %0;\n\t" \
  "fma.rn.f32 %1, %9, %9, %1;\n\t" \
  "fma.rn.f32 %2, %10, %10, %2;\n\t" \
  "fma.rn.f32 %3, %11, %11, %3;\n\t" \
  "fma.rn.f32 %4, %12, %12, %4;\n\t" \
  "fma.rn.f32 %5, %13, %13, %5;\n\t" \
  "fma.rn.f32 %6, %14, %14, %6;\n\t" \
  "fma.rn.f32 %7, %15, %15, %7;\n\t"
#define SAME \
  "fma.rn.f32 %0, %0, %0, %0;\n\t" \
  "fma.rn.f32 %1, %1, %1, %1;\n\t" \
  "fma.rn.f32 %2, %2, %2, %2;\n\t" \
  "fma.rn.f32 %3, %3, %3, %3;\n\t" \
  "fma.rn.f32 %4, %4, %4, %4;\n\t" \
  "fma.rn.f32 %5, %5, %5, %5;\n\t" \
  "fma.rn.f32 %6, %6, %6, %6;\n\t" \
  "fma.rn.f32 %7, %7, %7, %7;\n\t"
#define DIST64 \
  "fma.rn.f64 %0, %8, %16, %0;\n\t" \
  "fma.rn.f64 %1, %9, %17, %1;\n\t" \
  "fma.rn.f64 %2, %10, %18, %2;\n\t" \
  "fma.rn.f64 %3, %11, %19, %3;\n\t" \
  "fma.rn.f64 %4, %12, %20, %4;\n\t" \
  "fma.rn.f64 %5, %13, %21, %5;\n\t" \
  "fma.rn.f64 %6, %14, %22, %6;\n\t" \
  "fma.rn.f64 %7, %15, %23, %7;\n\t"

// `init` gives d_j its start value from c_j.
#define REGBANK_KERNEL(NAME, T, CON, FMT, INIT)                                                  \
  extern "C" __global__ void NAME(const T* __restrict__ in, T* __restrict__ out,                 \
                                  unsigned long long* __restrict__ clk, int iters) {             \
    const unsigned lane = threadIdx.x;                                                           \
    T a[8], b[8], d[8];                                                                          \
    _Pragma("unroll") for (int j = 0; j < 8; ++j) {                                              \
      a[j] = in[(3 * j) * 32 + lane];                                                            \
      b[j] = in[(3 * j + 1) * 32 + lane];                                                        \
      const T c = in[(3 * j + 2) * 32 + lane];                                                   \
      d[j] = INIT;                                                                               \
    }                                                                                            \
    /* Pass 0 warms the L1I up (the loop body is 16 lines): timed from pass 1. */               \
    unsigned long long t0 = 0;                                                                   \
    _Pragma("unroll 1") for (int i = 0; i <= iters; ++i) {                                       \
      if (i == 1) t0 = clock64();                                                                \
      _Pragma("unroll") for (int k = 0; k < UNROLL; ++k) { FMA8(FMT, CON); }                     \
    }                                                                                            \
    const unsigned long long t1 = clock64();                                                     \
    T sum = 0;                                                                                   \
    _Pragma("unroll") for (int j = 0; j < 8; ++j) sum += d[j];                                   \
    out[lane] = sum;                                                                             \
    clk[lane] = t1 - t0;                                                                         \
  }

REGBANK_KERNEL(regbank_distinct, float, "f", DISTINCT, c)
REGBANK_KERNEL(regbank_pair, float, "f", PAIR, c)
REGBANK_KERNEL(regbank_same, float, "f", SAME, -0.5f * fabsf(c))
REGBANK_KERNEL(regbank_fp64, double, "d", DIST64, c)
