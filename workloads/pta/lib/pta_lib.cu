// The library module of pta (pta.cu has the kernels), compiled as its own
// translation unit as the CARS paper compiles the common device functions (a
// separate module); the model links the two modules (ptx/link.h) as nvlink
// does. nvcc compiles each unit without knowing the other, so the kernels'
// calls into this unit follow the full ABI. The helpers have weak linkage
// (`inline`: .weak in the PTX), as library code another module may replace
// at link time: even within this unit their callers may not assume which
// registers they leave alone, so every call follows the full ABI and values
// live across a call sit in callee-saved registers (R16 up) that the callee
// saves and restores. The functions the kernels call are this unit's strong,
// visible entry points (ENTRY).
// rfsim: rdc

#include "pta_lib.cuh"

#define LIB __device__ __noinline__ inline
#define ENTRY __device__ __noinline__

// Depth 8: how many of `bits` were not yet set in `old`.
LIB unsigned new_bits(unsigned old, unsigned bits) { return __popc(bits & ~old); }

LIB unsigned merge_bits(unsigned* word, unsigned bits) {
  unsigned old = atomicOr(word, bits);
  return new_bits(old, bits);
}

// Word w of pts(dst) |= word w of pts(src): the number of bits added.
LIB unsigned union_word(unsigned* pts, int dst, int src, int w) {
  unsigned s = pts[src * WORDS + w];
  if (s == 0) return 0;
  unsigned d = pts[dst * WORDS + w];
  if ((s & ~d) == 0) return 0;  // nothing new: skip the atomic
  return merge_bits(&pts[dst * WORDS + w], s);
}

// pts(dst) |= pts(src).
LIB unsigned union_sets(unsigned* pts, int dst, int src) {
  if (dst == src) return 0;
  unsigned added = 0;
  for (int w = 0; w < WORDS; ++w) added += union_word(pts, dst, src, w);
  return added;
}

// Object o found in the pointer's set: LOAD p = *q copies pts(o) into
// pts(other = p); STORE *p = q copies pts(other = q) into pts(o).
LIB unsigned visit_pointee(unsigned* pts, int kind, int o, int other) {
  return kind == LOAD ? union_sets(pts, other, o) : union_sets(pts, o, other);
}

// Visits every object in pts(ptr) (each word as read once).
LIB unsigned for_each_pointee(unsigned* pts, int kind, int ptr, int other) {
  unsigned added = 0;
  for (int w = 0; w < WORDS; ++w) {
    unsigned bits = pts[ptr * WORDS + w];
    while (bits) {
      int b = __ffs(bits) - 1;
      bits &= bits - 1;
      added += visit_pointee(pts, kind, w * 32 + b, other);
    }
  }
  return added;
}

LIB unsigned apply_addr(unsigned* pts, int p, int o) { return merge_bits(&pts[p * WORDS + (o >> 5)], 1u << (o & 31)); }
LIB unsigned apply_copy(unsigned* pts, int p, int q) { return union_sets(pts, p, q); }
LIB unsigned apply_load(unsigned* pts, int p, int q) { return for_each_pointee(pts, LOAD, q, p); }
LIB unsigned apply_store(unsigned* pts, int p, int q) { return for_each_pointee(pts, STORE, p, q); }

ENTRY unsigned apply_constraint(unsigned* pts, int kind, int dst, int src) {
  switch (kind) {
    case ADDR: return apply_addr(pts, dst, src);
    case COPY: return apply_copy(pts, dst, src);
    case LOAD: return apply_load(pts, dst, src);
    default: return apply_store(pts, dst, src);
  }
}
