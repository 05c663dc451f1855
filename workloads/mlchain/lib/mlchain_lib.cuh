// What mlchain's kernels call in its library module (lib/mlchain_lib.cu).
#pragma once

__device__ void assign(const float* __restrict__ pts, const float* __restrict__ cents, int* __restrict__ labels,
                       float* __restrict__ dists, int p, int k, int d, const int* __restrict__ cols, int metric);
__device__ float centroid_coord(const float* __restrict__ pts, const int* __restrict__ labels,
                               const float* __restrict__ cents, int c, int j, int n, int d);
