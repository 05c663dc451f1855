// What sssp's kernels need from its library module (lib/sssp_lib.cu): the
// shared constants and the functions they call.
#pragma once



__device__ int relax_vertex(const int* __restrict__ row, const int* __restrict__ adj, const unsigned* __restrict__ packed_w,
                     int* dist, int* __restrict__ next, int v);
