// Whitted-style ray tracer over spheres and triangles (LTRF suite,
// register-sensitive; after the GPGPU-Sim ISPASS-2009 RAY benchmark). One
// thread per pixel: a primary ray from a pinhole camera, the closest hit
// among NS spheres (quadratic) and NT triangles (Moller-Trumbore), a shadow
// ray to a point light, Lambert shading with an ambient term, then a mirror
// bounce weighted by the surface's reflectivity, up to `bounces` times; a
// ray that leaves the scene picks up a sky gradient. Everything is inlined
// (no calls): the ray, the closest hit, its normal and material, the
// accumulated colour and the throughput are live together. The loops over
// the objects stay loops (a scene is data, not code): each pass reads one
// object from constant memory by its index.
#define NS 6
#define NT 4

struct Sphere {
  float cx, cy, cz, r;
  float red, green, blue, refl;
};
struct Triangle {
  float v0x, v0y, v0z, pad0;
  float e1x, e1y, e1z, pad1;  // v1 - v0
  float e2x, e2y, e2z, pad2;  // v2 - v0
  float red, green, blue, refl;
};

__constant__ Sphere c_spheres[NS];
__constant__ Triangle c_triangles[NT];
__constant__ float c_light[4];  // position, ambient

#define EPS 1e-3f
#define FAR 1e30f

// Nearest sphere hit with t in (EPS, tmax).
__device__ __forceinline__ float hit_sphere(const Sphere& s, float ox, float oy, float oz, float dx, float dy,
                                            float dz, float tmax) {
  const float px = ox - s.cx, py = oy - s.cy, pz = oz - s.cz;
  const float b = px * dx + py * dy + pz * dz;
  const float c = px * px + py * py + pz * pz - s.r * s.r;
  const float disc = b * b - c;
  if (disc <= 0.0f) return FAR;
  const float q = sqrtf(disc);
  float t = -b - q;
  if (t <= EPS) t = -b + q;
  return (t > EPS && t < tmax) ? t : FAR;
}

__device__ __forceinline__ float hit_triangle(const Triangle& tr, float ox, float oy, float oz, float dx, float dy,
                                              float dz, float tmax) {
  const float px = dy * tr.e2z - dz * tr.e2y, py = dz * tr.e2x - dx * tr.e2z, pz = dx * tr.e2y - dy * tr.e2x;
  const float det = tr.e1x * px + tr.e1y * py + tr.e1z * pz;
  if (fabsf(det) < 1e-8f) return FAR;
  const float inv = 1.0f / det;
  const float sx = ox - tr.v0x, sy = oy - tr.v0y, sz = oz - tr.v0z;
  const float u = (sx * px + sy * py + sz * pz) * inv;
  if (u < 0.0f || u > 1.0f) return FAR;
  const float qx = sy * tr.e1z - sz * tr.e1y, qy = sz * tr.e1x - sx * tr.e1z, qz = sx * tr.e1y - sy * tr.e1x;
  const float v = (dx * qx + dy * qy + dz * qz) * inv;
  if (v < 0.0f || u + v > 1.0f) return FAR;
  const float t = (tr.e2x * qx + tr.e2y * qy + tr.e2z * qz) * inv;
  return (t > EPS && t < tmax) ? t : FAR;
}

// image: width x height RGB floats. The camera sits at (0, 1, -4) looking
// down +z, the image plane spans [-aspect, aspect] x [-1, 1] at z = -2.5.
extern "C" __global__ void __launch_bounds__(128) lt_raytrace(float* __restrict__ image, int width, int height,
                                                              int bounces) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const float aspect = float(width) / float(height);
  float ox = 0.0f, oy = 1.0f, oz = -4.0f;
  float dx = aspect * (2.0f * (x + 0.5f) / width - 1.0f);
  float dy = 1.0f - 2.0f * (y + 0.5f) / height;
  float dz = 1.5f;
  {
    const float inv = 1.0f / sqrtf(dx * dx + dy * dy + dz * dz);
    dx *= inv, dy *= inv, dz *= inv;
  }
  float red = 0.0f, green = 0.0f, blue = 0.0f;
  float through = 1.0f;
  for (int bounce = 0; bounce <= bounces; ++bounce) {
    float t = FAR;
    int hit = -1;
#pragma unroll 1
    for (int s = 0; s < NS; ++s) {
      const float ts = hit_sphere(c_spheres[s], ox, oy, oz, dx, dy, dz, t);
      if (ts < t) t = ts, hit = s;
    }
#pragma unroll 1
    for (int k = 0; k < NT; ++k) {
      const float tt = hit_triangle(c_triangles[k], ox, oy, oz, dx, dy, dz, t);
      if (tt < t) t = tt, hit = NS + k;
    }
    if (hit < 0) {  // the sky
      const float g = 0.5f * (dy + 1.0f);
      red += through * (0.4f + 0.3f * g);
      green += through * (0.5f + 0.3f * g);
      blue += through * (0.7f + 0.3f * g);
      break;
    }
    const float hx = ox + t * dx, hy = oy + t * dy, hz = oz + t * dz;
    float nx, ny, nz, mr, mg, mb, refl;
    if (hit < NS) {
      const Sphere& s = c_spheres[hit];
      const float inv_r = 1.0f / s.r;
      nx = (hx - s.cx) * inv_r, ny = (hy - s.cy) * inv_r, nz = (hz - s.cz) * inv_r;
      mr = s.red, mg = s.green, mb = s.blue, refl = s.refl;
    } else {
      const Triangle& tr = c_triangles[hit - NS];
      nx = tr.e1y * tr.e2z - tr.e1z * tr.e2y;
      ny = tr.e1z * tr.e2x - tr.e1x * tr.e2z;
      nz = tr.e1x * tr.e2y - tr.e1y * tr.e2x;
      const float inv = 1.0f / sqrtf(nx * nx + ny * ny + nz * nz);
      nx *= inv, ny *= inv, nz *= inv;
      mr = tr.red, mg = tr.green, mb = tr.blue, refl = tr.refl;
    }
    if (nx * dx + ny * dy + nz * dz > 0.0f) nx = -nx, ny = -ny, nz = -nz;  // face the ray
    // Shadow ray to the light.
    float lx = c_light[0] - hx, ly = c_light[1] - hy, lz = c_light[2] - hz;
    const float ldist = sqrtf(lx * lx + ly * ly + lz * lz);
    {
      const float inv = 1.0f / ldist;
      lx *= inv, ly *= inv, lz *= inv;
    }
    bool lit = true;
#pragma unroll 1
    for (int s = 0; s < NS; ++s)
      if (hit_sphere(c_spheres[s], hx, hy, hz, lx, ly, lz, ldist) < FAR) lit = false;
#pragma unroll 1
    for (int k = 0; k < NT; ++k)
      if (hit_triangle(c_triangles[k], hx, hy, hz, lx, ly, lz, ldist) < FAR) lit = false;
    const float lambert = lit ? fmaxf(nx * lx + ny * ly + nz * lz, 0.0f) : 0.0f;
    const float shade = (c_light[3] + lambert) * through * (1.0f - refl);
    red += shade * mr, green += shade * mg, blue += shade * mb;
    through *= refl;
    if (through < 0.01f) break;
    // The mirror direction; the next ray starts at the hit point.
    const float dn = 2.0f * (dx * nx + dy * ny + dz * nz);
    dx -= dn * nx, dy -= dn * ny, dz -= dn * nz;
    ox = hx, oy = hy, oz = hz;
  }
  const long at = 3 * (long(y) * width + x);
  image[at] = red;
  image[at + 1] = green;
  image[at + 2] = blue;
}
