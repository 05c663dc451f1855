#include <cmath>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr int kSpheres = 6, kTriangles = 4;  // NS, NT in the kernel

struct Sphere {
  float cx, cy, cz, r;
  float red, green, blue, refl;
};
struct Triangle {
  float v0x, v0y, v0z, pad0;
  float e1x, e1y, e1z, pad1;
  float e2x, e2y, e2z, pad2;
  float red, green, blue, refl;
};

Triangle makeTriangle(const float a[3], const float b[3], const float c[3], float red, float green, float blue,
                      float refl) {
  return Triangle{a[0], a[1], a[2], 0.0f, b[0] - a[0], b[1] - a[1], b[2] - a[2], 0.0f,
                  c[0] - a[0], c[1] - a[1], c[2] - a[2], 0.0f, red, green, blue, refl};
}

constexpr double kEps = 1e-3, kFar = 1e30;

double hitSphere(const Sphere& s, const double o[3], const double d[3], double tmax) {
  const double p[3] = {o[0] - s.cx, o[1] - s.cy, o[2] - s.cz};
  const double b = p[0] * d[0] + p[1] * d[1] + p[2] * d[2];
  const double c = p[0] * p[0] + p[1] * p[1] + p[2] * p[2] - double(s.r) * s.r;
  const double disc = b * b - c;
  if (disc <= 0.0) return kFar;
  const double q = std::sqrt(disc);
  double t = -b - q;
  if (t <= kEps) t = -b + q;
  return t > kEps && t < tmax ? t : kFar;
}

double hitTriangle(const Triangle& tr, const double o[3], const double d[3], double tmax) {
  const double e1[3] = {tr.e1x, tr.e1y, tr.e1z}, e2[3] = {tr.e2x, tr.e2y, tr.e2z};
  const double p[3] = {d[1] * e2[2] - d[2] * e2[1], d[2] * e2[0] - d[0] * e2[2], d[0] * e2[1] - d[1] * e2[0]};
  const double det = e1[0] * p[0] + e1[1] * p[1] + e1[2] * p[2];
  if (std::fabs(det) < 1e-8) return kFar;
  const double s[3] = {o[0] - tr.v0x, o[1] - tr.v0y, o[2] - tr.v0z};
  const double u = (s[0] * p[0] + s[1] * p[1] + s[2] * p[2]) / det;
  if (u < 0.0 || u > 1.0) return kFar;
  const double q[3] = {s[1] * e1[2] - s[2] * e1[1], s[2] * e1[0] - s[0] * e1[2], s[0] * e1[1] - s[1] * e1[0]};
  const double v = (d[0] * q[0] + d[1] * q[1] + d[2] * q[2]) / det;
  if (v < 0.0 || u + v > 1.0) return kFar;
  const double t = (e2[0] * q[0] + e2[1] * q[1] + e2[2] * q[2]) / det;
  return t > kEps && t < tmax ? t : kFar;
}

// The kernel's algorithm in double.
void tracePixel(const Sphere* sp, const Triangle* tri, const float light[4], int x, int y, int width, int height,
                int bounces, double rgb[3]) {
  const double aspect = double(width) / height;
  double o[3] = {0.0, 1.0, -4.0};
  double d[3] = {aspect * (2.0 * (x + 0.5) / width - 1.0), 1.0 - 2.0 * (y + 0.5) / height, 1.5};
  double len = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  for (double& v : d) v /= len;
  rgb[0] = rgb[1] = rgb[2] = 0.0;
  double through = 1.0;
  for (int bounce = 0; bounce <= bounces; ++bounce) {
    double t = kFar;
    int hit = -1;
    for (int s = 0; s < kSpheres; ++s) {
      const double ts = hitSphere(sp[s], o, d, t);
      if (ts < t) t = ts, hit = s;
    }
    for (int k = 0; k < kTriangles; ++k) {
      const double tt = hitTriangle(tri[k], o, d, t);
      if (tt < t) t = tt, hit = kSpheres + k;
    }
    if (hit < 0) {
      const double g = 0.5 * (d[1] + 1.0);
      rgb[0] += through * (0.4 + 0.3 * g);
      rgb[1] += through * (0.5 + 0.3 * g);
      rgb[2] += through * (0.7 + 0.3 * g);
      break;
    }
    const double h[3] = {o[0] + t * d[0], o[1] + t * d[1], o[2] + t * d[2]};
    double n[3], m[3], refl;
    if (hit < kSpheres) {
      const Sphere& s = sp[hit];
      n[0] = (h[0] - s.cx) / s.r, n[1] = (h[1] - s.cy) / s.r, n[2] = (h[2] - s.cz) / s.r;
      m[0] = s.red, m[1] = s.green, m[2] = s.blue, refl = s.refl;
    } else {
      const Triangle& tr = tri[hit - kSpheres];
      n[0] = double(tr.e1y) * tr.e2z - double(tr.e1z) * tr.e2y;
      n[1] = double(tr.e1z) * tr.e2x - double(tr.e1x) * tr.e2z;
      n[2] = double(tr.e1x) * tr.e2y - double(tr.e1y) * tr.e2x;
      len = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
      for (double& v : n) v /= len;
      m[0] = tr.red, m[1] = tr.green, m[2] = tr.blue, refl = tr.refl;
    }
    if (n[0] * d[0] + n[1] * d[1] + n[2] * d[2] > 0.0)
      for (double& v : n) v = -v;
    double l[3] = {light[0] - h[0], light[1] - h[1], light[2] - h[2]};
    const double ldist = std::sqrt(l[0] * l[0] + l[1] * l[1] + l[2] * l[2]);
    for (double& v : l) v /= ldist;
    bool lit = true;
    for (int s = 0; s < kSpheres; ++s)
      if (hitSphere(sp[s], h, l, ldist) < kFar) lit = false;
    for (int k = 0; k < kTriangles; ++k)
      if (hitTriangle(tri[k], h, l, ldist) < kFar) lit = false;
    const double lambert = lit ? std::max(n[0] * l[0] + n[1] * l[1] + n[2] * l[2], 0.0) : 0.0;
    const double shade = (light[3] + lambert) * through * (1.0 - refl);
    for (int c = 0; c < 3; ++c) rgb[c] += shade * m[c];
    through *= refl;
    if (through < 0.01) break;
    const double dn = 2.0 * (d[0] * n[0] + d[1] * n[1] + d[2] * n[2]);
    for (int c = 0; c < 3; ++c) d[c] -= dn * n[c], o[c] = h[c];
  }
}

Check runRaytrace(rt::Device& dev, Size size) {
  // Small: 128 x 128 pixels (16384 threads, 128 blocks of 32 x 4), 1
  // bounce; Large: 1024 x 768, 3 bounces.
  const int width = size == Size::Small ? 128 : 1024;
  const int height = size == Size::Small ? 128 : 768;
  const int bounces = size == Size::Small ? 1 : 3;
  Rng rng(33);
  Sphere spheres[kSpheres];
  for (int s = 0; s < kSpheres; ++s) {
    const float r = rng.uniform(0.35f, 0.8f);
    spheres[s] = Sphere{-2.5f + 1.0f * s + rng.uniform(-0.2f, 0.2f), r + rng.uniform(0.0f, 0.6f),
                        rng.uniform(0.0f, 3.0f), r, rng.uniform(0.2f, 1.0f), rng.uniform(0.2f, 1.0f),
                        rng.uniform(0.2f, 1.0f), s % 2 ? 0.5f : 0.1f};
  }
  // A floor of two triangles and a tilted mirror-ish pyramid face behind.
  const float f0[3] = {-8, 0, -6}, f1[3] = {8, 0, -6}, f2[3] = {8, 0, 12}, f3[3] = {-8, 0, 12};
  const float w0[3] = {-4, 0, 6}, w1[3] = {4, 0, 6}, w2[3] = {0, 5, 8}, w3[3] = {6, 0, 9};
  const Triangle triangles[kTriangles] = {makeTriangle(f0, f1, f2, 0.8f, 0.8f, 0.7f, 0.2f),
                                          makeTriangle(f0, f2, f3, 0.7f, 0.8f, 0.8f, 0.2f),
                                          makeTriangle(w0, w1, w2, 0.9f, 0.4f, 0.3f, 0.6f),
                                          makeTriangle(w1, w3, w2, 0.3f, 0.9f, 0.4f, 0.0f)};
  const float light[4] = {3.0f, 7.0f, -3.0f, 0.15f};
  dev.memcpyHtoD(dev.symbolAddress("c_spheres"), spheres, sizeof spheres);
  dev.memcpyHtoD(dev.symbolAddress("c_triangles"), triangles, sizeof triangles);
  dev.memcpyHtoD(dev.symbolAddress("c_light"), light, sizeof light);

  const size_t values = size_t(width) * height * 3;
  DeviceBuffer d_image(dev, values * sizeof(float));
  const rt::Dim3 block{32, 4, 1};
  dev.launch("lt_raytrace", {ceilDiv(width, block.x), ceilDiv(height, block.y)}, block,
             rt::KernelArgs().ptr(d_image.addr()).i32(width).i32(height).i32(bounces));
  const std::vector<float> got = d_image.download<float>(values);

  // Each pixel's colour is a handful of shading terms below 1 from float
  // geometry good to a few ulps, but a reflected ray's direction carries the
  // error of the hit point and the normal, magnified where it grazes a
  // surface: 5e-4 + 5e-4 relative. A ray that
  // grazes an edge (of an object or of a shadow) may hit in float and miss
  // in double or the other way round; such pixels are counted and may be at
  // most 1 % of the image.
  const double atol = 5e-4, rtol = 5e-4;
  size_t off = 0, first_off = values;
  double max_err = 0.0;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      double rgb[3];
      tracePixel(spheres, triangles, light, x, y, width, height, bounces, rgb);
      const size_t at = 3 * (size_t(y) * width + x);
      bool bad = false;
      for (int c = 0; c < 3; ++c) {
        const double err = std::fabs(got[at + c] - rgb[c]);
        if (!(err <= atol + rtol * std::fabs(rgb[c]))) bad = true;
        else max_err = std::max(max_err, err);
      }
      if (bad) {
        ++off;
        if (first_off == values) first_off = at / 3;
      }
    }
  const size_t pixels = size_t(width) * height;
  Check c;
  c.passed = off * 100 <= pixels;
  c.detail = fmt::format(
      "{} pixels ({}x{}, {} bounce(s), {} spheres, {} triangles): {} outside {:g} + {:g}*|expected| (edge rays; at "
      "most 1 % allowed){}, max abs error of the others {:.2g}",
      pixels, width, height, bounces, kSpheres, kTriangles, off, atol, rtol,
      off ? fmt::format(", the first pixel {}", first_off) : std::string(), max_err);
  return c;
}

}  // namespace

RFSIM_WORKLOAD("lt_raytrace",
               "ray tracer over spheres and triangles with shadow rays and mirror bounces, all inlined (LTRF suite)",
               "workloads/lt_raytrace/lt_raytrace.ptx", {"ltrf", "regsens", "constant", "divergence", "compute"},
               runRaytrace);

}  // namespace rfsim::workloads
