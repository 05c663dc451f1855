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
// rfsim: link lib/pta_lib
//
// The helpers are a translation unit of their own (lib/pta_lib.cu), which the
// model links with this one (ptx/link.h).

#include "lib/pta_lib.cuh"

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
