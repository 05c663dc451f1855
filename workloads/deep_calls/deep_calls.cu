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
// rfsim: link lib/deep_calls_lib
//
// The levels are a translation unit of their own (lib/deep_calls_lib.cu, the
// paper's library module), which the model links with this one (ptx/link.h).

#include "lib/deep_calls_lib.cuh"

extern "C" __global__ void deep_calls(const unsigned* __restrict__ in,
                                      const unsigned* __restrict__ table,
                                      unsigned* __restrict__ out, int n, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned h = in[i];
  for (int it = 0; it < iters; ++it) h = level<1>(h, (unsigned)it, table);
  out[i] = h;
}
