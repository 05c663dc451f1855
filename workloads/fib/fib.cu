// Naive recursive Fibonacci, one independent n per thread. The recursion is
// a real call (not inlined, not turned into a loop by the front end): each
// level saves its caller's live values on the call stack, the pattern CARS
// keeps in the register file. Different n per lane make the warp's threads
// return at different depths (divergent calls and returns).
//
// The recursive function is a translation unit of its own (lib/fib_lib.cu,
// the paper's library module), compiled apart and linked by the model
// (ptx/link.h), so the kernel's call into it follows the full ABI. Separate
// compilation keeps it a real call:
// rfsim: rdc
// rfsim: link lib/fib_lib

#include "lib/fib_lib.cuh"

extern "C" __global__ void fib_kernel(const unsigned* __restrict__ n, unsigned* __restrict__ out,
                                      int count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[i] = fib(n[i]);
}
