// What fib's kernel calls in its library module (lib/fib_lib.cu).
#pragma once

__device__ unsigned fib(unsigned n);
