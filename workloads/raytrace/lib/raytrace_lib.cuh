// What raytrace's kernel needs from its library module (lib/raytrace_lib.cu):
// the scene in constant memory (defined there), the hit record, the vector
// helpers and the functions it calls.
#pragma once

#define NUM_SPHERES 4
#define NO_HIT 1e30f

// The scene, defined in the library and uploaded by the host through the
// symbol addresses. Sphere s: center (x, y, z), radius, albedo (r, g, b),
// reflectivity. Ground plane y = plane[0], albedo plane[1..3], reflectivity
// plane[4]; light position light[0..2], intensity light[3]; camera position
// cam[0..2]. Declared only under separate compilation (-rdc=true defines
// __CUDACC_RDC__): scripts/gen_ptx.sh compiles the fully inlined variant as
// one whole program, the library's source first, and there an extern
// __constant__ declaration would be a second definition.
#ifdef __CUDACC_RDC__
extern __constant__ float spheres[NUM_SPHERES][8];
extern __constant__ float plane[5];
extern __constant__ float light[4];
extern __constant__ float cam[3];
#endif

struct Hit {
  float t;
  int id;  // sphere index, NUM_SPHERES for the plane, -1 for none
};

__device__ __forceinline__ float3 operator+(float3 a, float3 b) { return make_float3(a.x + b.x, a.y + b.y, a.z + b.z); }
__device__ __forceinline__ float3 operator-(float3 a, float3 b) { return make_float3(a.x - b.x, a.y - b.y, a.z - b.z); }
__device__ __forceinline__ float3 operator*(float3 a, float s) { return make_float3(a.x * s, a.y * s, a.z * s); }
__device__ __forceinline__ float3 operator*(float3 a, float3 b) { return make_float3(a.x * b.x, a.y * b.y, a.z * b.z); }
__device__ __forceinline__ float dot(float3 a, float3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
__device__ __forceinline__ float3 normalize(float3 v) { return v * (1.0f / sqrtf(dot(v, v))); }

__device__ Hit closest_hit(float3 o, float3 d);
__device__ float3 surface_normal(float3 p, int id);
__device__ float3 shade(float3 p, float3 n, float3 d, int id);
__device__ float3 reflect(float3 d, float3 n);
