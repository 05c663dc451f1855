// A toy Andersen-style points-to analysis (LoneStar PTA, CARS Table I): an
// inclusion-constraint solver over points-to sets kept as 128-bit vectors
// (4 words per variable). Variables 0..127 are also the abstract objects
// (the memory locations a pointer can point to). Constraint kinds:
//   ADDR   p = &o   o in pts(p)
//   COPY   p = q    pts(q) within pts(p)
//   LOAD   p = *q   pts(o) within pts(p) for every o in pts(q)
//   STORE  *p = q   pts(q) within pts(o) for every o in pts(p)
// One thread per constraint applies it once per launch, adding bits with
// atomicOr; the host relaunches until a launch adds no bit. Sets only grow
// and every addition is implied by the constraints, so the result is the
// least fixed point whatever the order; the number of bits the atomicOrs
// newly set adds up to the final total.
//
// Call chain (depth 8 through a load or store): pta_solve -> apply_constraint
// -> apply_load -> for_each_pointee -> visit_pointee -> union_sets ->
// union_word -> merge_bits -> new_bits. The helpers stand for the paper's
// library module: `inline` gives them weak linkage (.weak), so every call
// follows the full ABI and values live across a call sit in callee-saved
// registers (R16 up) that the callee saves and restores. Separate
// compilation keeps them real calls:
// rfsim: rdc

#define LIB __device__ __noinline__ inline

#define WORDS 4  // 128-bit points-to sets
#define ADDR 0
#define COPY 1
#define LOAD 2
#define STORE 3

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

LIB unsigned apply_constraint(unsigned* pts, int kind, int dst, int src) {
  switch (kind) {
    case ADDR: return apply_addr(pts, dst, src);
    case COPY: return apply_copy(pts, dst, src);
    case LOAD: return apply_load(pts, dst, src);
    default: return apply_store(pts, dst, src);
  }
}

#define BLOCK 128  // the host's block size (a power of two)

// Constraint c: kinds[c] with (dst[c], src[c]) = (p, o) for ADDR, (p, q)
// otherwise. *added counts the bits this launch set: the block sums its
// threads' counts in shared memory first (a tree with a barrier per level,
// as LoneStar's kernels count their changes per block before one atomic),
// so the kernel has barriers after its calls, like the paper's PTA K1.
extern "C" __global__ void pta_solve(const int* __restrict__ kinds, const int* __restrict__ dst,
                                     const int* __restrict__ src, unsigned* pts, unsigned* __restrict__ added,
                                     int num_constraints) {
  __shared__ unsigned block_added[BLOCK];
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned k = c < num_constraints ? apply_constraint(pts, kinds[c], dst[c], src[c]) : 0;
  block_added[threadIdx.x] = k;
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) block_added[threadIdx.x] += block_added[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0 && block_added[0]) atomicAdd(added, block_added[0]);
}
