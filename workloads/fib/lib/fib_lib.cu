// The library module of fib (fib.cu has the kernel), compiled as its own
// translation unit as the CARS paper compiles the common device functions (a
// separate module); the model links the two modules (ptx/link.h) as nvlink
// does. nvcc compiles each unit without knowing the other, so the kernel's
// call into this unit follows the full ABI. fib is the unit's strong,
// visible entry point; its recursive calls to itself follow the ABI too
// (a recursive function cannot know its own callee's registers before it is
// allocated).
// rfsim: rdc

#include "fib_lib.cuh"

#define ENTRY __device__ __noinline__

ENTRY unsigned fib(unsigned n) {
  if (n < 2) return n;
  return fib(n - 1) + fib(n - 2);
}
