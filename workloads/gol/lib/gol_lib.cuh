// What gol's kernels need from its library module (lib/gol_lib.cu): the
// shared constants and the functions they call.
#pragma once



__device__ int count_neighbors(const unsigned char* __restrict__ grid, int x, int y, int w, int h);
__device__ unsigned char next_state(int alive, int neighbors);
