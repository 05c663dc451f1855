// A chain of eight non-inlined device functions (level<1> ... level<8>).
// Every non-leaf level computes ten values, calls the next level, and needs
// all ten again afterwards, so they live across the call: under the ABI they
// sit in callee-saved registers (R16 up) that each callee saves to its stack
// frame on entry and restores on return -- the spill/fill traffic CARS
// removes. Half of the calls (by data) make a second call, so the lanes of a
// warp call and return at different times.
//
// Compiled with -rdc=true: in whole-program mode ptxas allocates registers
// across the call graph and no level saves anything (0-byte frames, 111
// registers in the kernel); separate compilation keeps the ABI:
// rfsim: rdc

#define DEPTH 8
#define TABLE_MASK 255u  // the lookup table has 256 entries

__device__ __forceinline__ unsigned mix(unsigned h, unsigned v) {
  h ^= v;
  h *= 0x9E3779B1u;
  return h ^ (h >> 15);
}

template <int L>
__device__ __noinline__ unsigned level(unsigned x, unsigned y, const unsigned* __restrict__ table) {
  if constexpr (L == DEPTH) {
    return mix(x + L, y) ^ table[(x ^ y) & TABLE_MASK];
  } else {
    // Six values from arithmetic and four from memory: loads cannot be
    // recomputed after the call, so the allocator has to keep them.
    unsigned a0 = x * 3u + L;
    unsigned a1 = y ^ (x >> 3);
    unsigned a2 = x + y * 5u;
    unsigned a3 = __brev(x) ^ y;
    unsigned a4 = __funnelshift_l(x, y, L);
    unsigned a5 = (x | y) - (x & y);
    unsigned a6 = table[(x + L) & TABLE_MASK];
    unsigned a7 = table[(y + 3u * L) & TABLE_MASK];
    unsigned a8 = table[(a0 ^ a1) & TABLE_MASK];
    unsigned a9 = table[(a2 + a3) & TABLE_MASK];

    unsigned r = level<L + 1>(mix(a0, a6), mix(a1, a7), table);
    if (a8 & 1u) r ^= level<L + 1>(mix(a2, r), a9, table);

    unsigned h = mix(r, a0);
    h = mix(h, a1);
    h = mix(h, a2);
    h = mix(h, a3);
    h = mix(h, a4);
    h = mix(h, a5);
    h = mix(h, a6);
    h = mix(h, a7);
    h = mix(h, a8);
    return mix(h, a9);
  }
}

extern "C" __global__ void deep_calls(const unsigned* __restrict__ in,
                                      const unsigned* __restrict__ table,
                                      unsigned* __restrict__ out, int n, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned h = in[i];
  for (int it = 0; it < iters; ++it) h = level<1>(h, (unsigned)it, table);
  out[i] = h;
}
