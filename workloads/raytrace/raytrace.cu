// Whitted-style ray tracer: one primary ray per pixel against a few spheres
// and a ground plane, Lambert + Blinn-Phong shading with hard shadows, and a
// bounded number of mirror bounces (an iterative loop, not recursion). The
// helpers are deliberately not inlined: intersection, normal, shading and
// reflection are calls, some of them nested (shade -> in_shadow ->
// closest_hit -> intersect_sphere), as in the ray tracers of the CARS suite.
// Compiled with -rdc=true (separate compilation), so the calls follow the ABI
// and callee-saved registers are saved in each helper's stack frame:
// rfsim: rdc

#define NUM_SPHERES 4
#define NO_HIT 1e30f

// Scene, uploaded by the host through the symbol address. Sphere s:
// center (x, y, z), radius, albedo (r, g, b), reflectivity.
__constant__ float spheres[NUM_SPHERES][8];
// Ground plane y = plane[0], albedo plane[1..3], reflectivity plane[4];
// light position light[0..2], intensity light[3]; camera position cam[0..2].
__constant__ float plane[5];
__constant__ float light[4];
__constant__ float cam[3];

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
