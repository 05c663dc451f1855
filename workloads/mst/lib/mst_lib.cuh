// What mst's kernels need from its library module (lib/mst_lib.cu): the
// shared constants and the functions they call.
#pragma once

#define ID_BITS 22u
#define ID_MASK ((1u << ID_BITS) - 1u)
#define NO_EDGE 0xffffffffu

__device__ int find_root(const volatile int* parent, int x);
__device__ unsigned vertex_cheapest(const int* __restrict__ row, const int* __restrict__ adj,
                             const unsigned* __restrict__ adj_w, const unsigned* __restrict__ adj_id,
                             const int* parent, int v, int cv);
__device__ unsigned merge_component(int* parent, const int* __restrict__ eu, const int* __restrict__ ev,
                             unsigned* __restrict__ in_mst, unsigned* __restrict__ totals, unsigned key);
