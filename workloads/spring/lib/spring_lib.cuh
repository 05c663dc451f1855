// What spring's kernels need from its library module (lib/spring_lib.cu): the
// shared constants and the functions they call.
#pragma once



__device__ float spring_force(const float* __restrict__ pos, const float* __restrict__ vel, int a, int b,
                                           float rest, float k, float c, float* __restrict__ f);
__device__ void update_node(float* __restrict__ pos, float* __restrict__ vel,
                                         const float* __restrict__ inv_mass, const int* __restrict__ inc_off,
                                         const int* __restrict__ inc, const float* __restrict__ sforce, int node,
                                         float gravity, float dt);
