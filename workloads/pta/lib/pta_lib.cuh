// What pta's kernels need from its library module (lib/pta_lib.cu): the
// shared constants and the functions they call.
#pragma once

#define WORDS 4  // 128-bit points-to sets
#define ADDR 0
#define COPY 1
#define LOAD 2
#define STORE 3
#define BLOCK 128  // the host's block size (a power of two)

__device__ unsigned apply_constraint(unsigned* pts, int kind, int dst, int src);
