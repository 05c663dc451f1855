// Whitted-style ray tracer: one primary ray per pixel against a few spheres
// and a ground plane, Lambert + Blinn-Phong shading with hard shadows, and a
// bounded number of mirror bounces (an iterative loop, not recursion). The
// helpers are deliberately not inlined: intersection, normal, shading and
// reflection are calls, some of them nested (shade -> in_shadow ->
// closest_hit -> intersect_sphere), as in the ray tracers of the CARS suite.
// The helpers and the scene are the paper's library module (CARS compiles
// the common device functions as a separate module): lib/raytrace_lib.cu,
// its own translation unit, which the model links with this one
// (ptx/link.h), so the kernel's calls into it follow the full ABI.
// Compiled with -rdc=true (separate compilation), so the calls follow the ABI
// and callee-saved registers are saved in each helper's stack frame:
// rfsim: rdc
// rfsim: link lib/raytrace_lib

#include "lib/raytrace_lib.cuh"

__device__ __forceinline__ float reflectivity(int id) {
  return id == NUM_SPHERES ? plane[4] : spheres[id][7];
}

// out[y * width + x] = linear RGB of pixel (x, y); w unused (alignment).
extern "C" __global__ void render(float4* __restrict__ out, int width, int height,
                                  int max_bounces) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;

  // Pinhole camera looking down -z, 60 degree-ish field of view.
  float aspect = (float)width / (float)height;
  float u = (2.0f * (x + 0.5f) / width - 1.0f) * aspect * 0.577f;
  float v = (1.0f - 2.0f * (y + 0.5f) / height) * 0.577f;
  float3 o = make_float3(cam[0], cam[1], cam[2]);
  float3 d = normalize(make_float3(u, v, -1.0f));

  float3 color = make_float3(0.0f, 0.0f, 0.0f);
  float3 throughput = make_float3(1.0f, 1.0f, 1.0f);
  for (int bounce = 0; bounce <= max_bounces; ++bounce) {
    Hit h = closest_hit(o, d);
    if (h.id < 0) {
      float sky = 0.5f * (d.y + 1.0f);
      color = color + throughput * make_float3(0.6f + 0.2f * sky, 0.7f + 0.2f * sky, 1.0f);
      break;
    }
    float3 p = o + d * h.t;
    float3 n = surface_normal(p, h.id);
    color = color + throughput * shade(p, n, d, h.id);
    float k = reflectivity(h.id);
    if (k <= 0.0f) break;
    throughput = throughput * k;
    o = p;
    d = reflect(d, n);
  }
  out[y * width + x] = make_float4(color.x, color.y, color.z, 0.0f);
}
