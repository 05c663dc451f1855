// Instruction-fetch microbenchmark: what straight-line code costs the first
// time a warp runs it (cold: every line comes from the L2, or from what the
// prefetcher brought ahead) against the second time (warm: from the I-caches
// if the code fits them). One warp runs a block of BODY integer adds twice, in
// a loop of two passes (`#pragma unroll 1`: the passes run the same code),
// reading %clock64 before and after each pass; lane 0 writes both deltas.
//
// The adds are inline PTX (asm volatile, so nvcc keeps them and their order
// against the clock reads) over eight registers that feed each other:
// r0 += r1, r1 += r2, ..., r7 += r0. Each add reads a register written seven
// adds earlier, more than any configuration's ALU latency, so a warp can issue
// one every cycle when its code is there; nothing can be folded, because every
// value starts from global memory. Two sizes: 96 adds (1.5 KiB at Volta's 16
// bytes an instruction, 1 KiB in Maxwell's encoding: inside every
// configuration's first-level I-cache) and 768 adds (12 KiB at 16 bytes, with
// the loop and the clock reads more than Volta's 12 KiB L0 holds).

#define ADD8                                                                                 \
  asm volatile(                                                                              \
      "add.u32 %0, %0, %1;\n\tadd.u32 %1, %1, %2;\n\tadd.u32 %2, %2, %3;\n\tadd.u32 %3, %3, %4;\n\t" \
      "add.u32 %4, %4, %5;\n\tadd.u32 %5, %5, %6;\n\tadd.u32 %6, %6, %7;\n\tadd.u32 %7, %7, %0;"   \
      : "+r"(r[0]), "+r"(r[1]), "+r"(r[2]), "+r"(r[3]), "+r"(r[4]), "+r"(r[5]), "+r"(r[6]), "+r"(r[7]))

#define ICACHE_KERNEL(NAME, BODY)                                                             \
  extern "C" __global__ void NAME(const unsigned* __restrict__ in, unsigned* __restrict__ out, \
                                  unsigned long long* __restrict__ clk) {                     \
    const unsigned lane = threadIdx.x;                                                        \
    unsigned r[8];                                                                            \
    _Pragma("unroll") for (int k = 0; k < 8; ++k) r[k] = in[8 * lane + k];                    \
    _Pragma("unroll 1") for (int pass = 0; pass < 2; ++pass) {                                \
      const unsigned long long t0 = clock64();                                                \
      _Pragma("unroll") for (int k = 0; k < (BODY) / 8; ++k) { ADD8; }                        \
      const unsigned long long t1 = clock64();                                                \
      if (lane == 0) clk[pass] = t1 - t0;                                                     \
    }                                                                                         \
    _Pragma("unroll") for (int k = 0; k < 8; ++k) out[8 * lane + k] = r[k];                   \
  }

ICACHE_KERNEL(icache_96, 96)
ICACHE_KERNEL(icache_768, 768)
