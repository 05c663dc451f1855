// The library module of raytrace (raytrace.cu has the kernel): the scene in
// constant memory and the intersection, normal, shading and reflection
// helpers, compiled as their own translation unit as the CARS paper compiles
// the common device functions (a separate module); the model links the two
// modules (ptx/link.h) as nvlink does. nvcc compiles each unit without
// knowing the other, so the kernel's calls into this unit follow the full
// ABI. All helpers are strong (visible) definitions, as before the split;
// closest_hit, surface_normal, shade and reflect are the ones the kernel
// calls.
// rfsim: rdc

#include "raytrace_lib.cuh"

// Scene, uploaded by the host through the symbol address. Sphere s:
// center (x, y, z), radius, albedo (r, g, b), reflectivity.
__constant__ float spheres[NUM_SPHERES][8];
// Ground plane y = plane[0], albedo plane[1..3], reflectivity plane[4];
// light position light[0..2], intensity light[3]; camera position cam[0..2].
__constant__ float plane[5];
__constant__ float light[4];
__constant__ float cam[3];

// Nearest positive root of |o + t d - c|^2 = r^2 (d normalised), or NO_HIT.
__device__ __noinline__ float intersect_sphere(float3 o, float3 d, int s) {
  float3 c = make_float3(spheres[s][0], spheres[s][1], spheres[s][2]);
  float r = spheres[s][3];
  float3 oc = o - c;
  float b = dot(oc, d);
  float disc = b * b - (dot(oc, oc) - r * r);
  if (disc < 0.0f) return NO_HIT;
  float sq = sqrtf(disc);
  float t = -b - sq;
  if (t > 1e-3f) return t;
  t = -b + sq;
  return t > 1e-3f ? t : NO_HIT;
}

__device__ __noinline__ float intersect_plane(float3 o, float3 d) {
  if (fabsf(d.y) < 1e-6f) return NO_HIT;
  float t = (plane[0] - o.y) / d.y;
  return t > 1e-3f ? t : NO_HIT;
}

__device__ __noinline__ Hit closest_hit(float3 o, float3 d) {
  Hit h = {NO_HIT, -1};
  for (int s = 0; s < NUM_SPHERES; ++s) {
    float t = intersect_sphere(o, d, s);
    if (t < h.t) h = Hit{t, s};
  }
  float t = intersect_plane(o, d);
  if (t < h.t) h = Hit{t, NUM_SPHERES};
  return h;
}

__device__ __noinline__ float3 surface_normal(float3 p, int id) {
  if (id == NUM_SPHERES) return make_float3(0.0f, 1.0f, 0.0f);
  float3 c = make_float3(spheres[id][0], spheres[id][1], spheres[id][2]);
  return (p - c) * (1.0f / spheres[id][3]);
}

__device__ __noinline__ bool in_shadow(float3 p, float3 to_light, float light_dist) {
  Hit h = closest_hit(p, to_light);
  return h.t < light_dist;
}

__device__ __noinline__ float3 reflect(float3 d, float3 n) { return d - n * (2.0f * dot(d, n)); }

// Direct light at p seen along d: ambient + (unless shadowed) diffuse and a
// white specular highlight.
__device__ __noinline__ float3 shade(float3 p, float3 n, float3 d, int id) {
  float3 albedo = id == NUM_SPHERES ? make_float3(plane[1], plane[2], plane[3])
                                    : make_float3(spheres[id][4], spheres[id][5], spheres[id][6]);
  // Checkerboard on the ground plane.
  if (id == NUM_SPHERES && ((int)floorf(p.x) + (int)floorf(p.z)) & 1) albedo = albedo * 0.5f;
  float3 color = albedo * 0.1f;

  float3 l = make_float3(light[0], light[1], light[2]) - p;
  float light_dist = sqrtf(dot(l, l));
  l = l * (1.0f / light_dist);
  float ndotl = dot(n, l);
  if (ndotl > 0.0f && !in_shadow(p, l, light_dist)) {
    float3 h = normalize(l - d);
    float spec = fmaxf(dot(n, h), 0.0f);
    spec *= spec;  // spec^32 by repeated squaring
    spec *= spec;
    spec *= spec;
    spec *= spec;
    spec *= spec;
    color = color + (albedo * ndotl + make_float3(spec, spec, spec) * 0.5f) * light[3];
  }
  return color;
}
