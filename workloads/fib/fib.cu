// Naive recursive Fibonacci, one independent n per thread. The recursion is
// a real call (not inlined, not turned into a loop by the front end): each
// level saves its caller's live values on the call stack, the pattern CARS
// keeps in the register file. Different n per lane make the warp's threads
// return at different depths (divergent calls and returns).

__device__ __noinline__ unsigned fib(unsigned n) {
  if (n < 2) return n;
  return fib(n - 1) + fib(n - 2);
}

extern "C" __global__ void fib_kernel(const unsigned* __restrict__ n, unsigned* __restrict__ out,
                                      int count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[i] = fib(n[i]);
}
