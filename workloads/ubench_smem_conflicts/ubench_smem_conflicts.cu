// Microbenchmark: shared-memory bank conflicts. One warp; lane l chases a
// pointer that points to itself at word l*stride of a 1024-word shared array,
// so every load of the chain has the same addresses: with 32 banks of 4-byte
// words, stride 1 touches 32 banks (no conflict), stride 2 is a 2-way
// conflict, 4 4-way, 8 8-way, 16 16-way, 32 32-way (all lanes in bank 0).
// Stride 0 (every lane the same word) is a broadcast, no conflict.
//
// Two timings per launch, each between two %clock64 reads:
//  dependent:   `iters` x 64 loads, each address the previous load's value
//               (latency of one conflicted access: base latency + replays);
//  independent: `iters` x 64 loads in 8 interleaved self-pointing chains on
//               8 different words of the same bank set (rows 32*stride words
//               apart, modulo the array), i.e. the conflict's throughput cost.
// Inline PTX (asm volatile), so nvcc neither folds nor reorders the loads.

#define UNROLL 64
#define WORDS 1024

extern "C" __global__ void smem_conflict(unsigned* __restrict__ out, unsigned long long* __restrict__ clk,
                                         int iters, unsigned stride) {
  __shared__ unsigned s[WORDS];
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(s));
  const unsigned lane = threadIdx.x;
  // Every word holds its own shared-window address.
  for (unsigned i = lane; i < WORDS; i += blockDim.x) s[i] = base + 4u * i;
  __syncthreads();

  // Dependent chain: lane l on word (l*stride) mod WORDS.
  unsigned p = base + 4u * ((lane * stride) % WORDS);
  const unsigned long long t0 = clock64();
#pragma unroll 1
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < UNROLL; ++k) asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p));
  }
  const unsigned long long t1 = clock64();

  // Eight independent chains: chain j of lane l on word (l*stride + 32*j) mod
  // WORDS; same bank as the dependent chain's word, so the conflict degree is
  // the same, and the eight are in flight together.
  unsigned q[8];
#pragma unroll
  for (int j = 0; j < 8; ++j) q[j] = base + 4u * ((lane * stride + 32u * j) % WORDS);
  const unsigned long long t2 = clock64();
#pragma unroll 1
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < UNROLL / 8; ++k) {
      asm volatile(
          "ld.shared.u32 %0, [%0];\n\t"
          "ld.shared.u32 %1, [%1];\n\t"
          "ld.shared.u32 %2, [%2];\n\t"
          "ld.shared.u32 %3, [%3];\n\t"
          "ld.shared.u32 %4, [%4];\n\t"
          "ld.shared.u32 %5, [%5];\n\t"
          "ld.shared.u32 %6, [%6];\n\t"
          "ld.shared.u32 %7, [%7];"
          : "+r"(q[0]), "+r"(q[1]), "+r"(q[2]), "+r"(q[3]), "+r"(q[4]), "+r"(q[5]), "+r"(q[6]), "+r"(q[7]));
    }
  }
  const unsigned long long t3 = clock64();

  // Word indices, so the host can check them without knowing `base`.
  out[lane] = (p - base) / 4u;
#pragma unroll
  for (int j = 0; j < 8; ++j) out[32 * (1 + j) + lane] = (q[j] - base) / 4u;
  clk[lane] = t1 - t0;
  clk[32 + lane] = t3 - t2;
}
