// The library module of deep_calls (deep_calls.cu has the kernel): the eight
// levels of the call chain, compiled as their own translation unit as the
// CARS paper compiles the common device functions (a separate module); the
// model links the two modules (ptx/link.h) as nvlink does. nvcc compiles
// each unit without knowing the other, so the kernel's call into this unit
// follows the full ABI. level<2> ... level<8> are instances of a function
// template, which have weak linkage (.weak in the PTX) as library code that
// another module may replace at link time: their callers may not assume which
// registers they leave alone, so every call follows the full ABI. level<1>,
// which the kernel calls, is an explicit specialization, an ordinary
// function: this unit's strong, visible entry point (ENTRY).
// rfsim: rdc

#define ENTRY __device__ __noinline__

// Level L of the chain. nvcc takes a template's attributes from its first
// declaration, so this one, before the header's, carries __noinline__
// (scripts/gen_ptx.sh's fully inlined variant makes it __forceinline__).
template <int L>
__device__ __noinline__ unsigned level(unsigned x, unsigned y, const unsigned* __restrict__ table);

#include "deep_calls_lib.cuh"

#define DEPTH 8
#define TABLE_MASK 255u  // the lookup table has 256 entries

__device__ __forceinline__ unsigned mix(unsigned h, unsigned v) {
  h ^= v;
  h *= 0x9E3779B1u;
  return h ^ (h >> 15);
}

// The code of level<L>, inlined into it.
template <int L>
__device__ __forceinline__ unsigned level_body(unsigned x, unsigned y, const unsigned* __restrict__ table) {
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

// Levels 2 to 8 (weak: template instances).
template <int L>
__device__ unsigned level(unsigned x, unsigned y, const unsigned* __restrict__ table) {
  return level_body<L>(x, y, table);
}

// Level 1, the entry point.
template <>
ENTRY unsigned level<1>(unsigned x, unsigned y, const unsigned* __restrict__ table) {
  return level_body<1>(x, y, table);
}
