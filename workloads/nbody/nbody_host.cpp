#include <cmath>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

struct Float4 {
  float x, y, z, w;
};

Check runNbody(rt::Device& dev, Size size) {
  // Small: 300 bodies in blocks of 64, so the last tile is padded.
  const int n = size == Size::Small ? 300 : 16384;
  const uint32_t block = size == Size::Small ? 64 : 256;
  const float dt = 0.01f, eps2 = 0.01f;
  Rng rng(17);
  std::vector<Float4> pos(n), vel(n);
  for (auto& p : pos)
    p = {rng.uniform(-1.0f, 1.0f), rng.uniform(-1.0f, 1.0f), rng.uniform(-1.0f, 1.0f),
         rng.uniform(0.5f, 1.5f) / float(n)};
  for (auto& v : vel) v = {rng.uniform(-0.1f, 0.1f), rng.uniform(-0.1f, 0.1f), rng.uniform(-0.1f, 0.1f), 0.0f};

  DeviceBuffer d_pos(dev, pos), d_vel(dev, vel), d_out(dev, pos.size() * sizeof(Float4));
  dev.launch("nbody_step", {ceilDiv(n, block)}, {block},
             rt::KernelArgs().ptr(d_pos.addr()).ptr(d_out.addr()).ptr(d_vel.addr()).i32(n).f32(dt).f32(eps2),
             block * sizeof(Float4));
  std::vector<Float4> got_pos = d_out.download<Float4>(n), got_vel = d_vel.download<Float4>(n);

  // Reference in double. Tolerances, per component of body i, from
  // S = sum_j m_j |r_ij| / (|r_ij|^2 + eps2)^1.5 (the sum of the magnitudes
  // of the terms): each term carries rsqrt.approx.f32's 2^-22.9 relative
  // error three times plus a few float roundings (< 16 ulps), and n float
  // additions (or fmas) add at most n ulps of S. Velocity and position then
  // round once more each. This bound is loose for random data but catches a
  // dropped tile, a wrong body or a wrong sign, which change a by ~S/n or more.
  const double ulp = std::ldexp(1.0, -24);
  std::vector<double> ref_v, ref_p, tol_v, tol_p;
  std::vector<float> flat_v, flat_p;
  for (int i = 0; i < n; ++i) {
    double a[3] = {0, 0, 0}, s = 0.0;
    for (int j = 0; j < n; ++j) {
      double r[3] = {double(pos[j].x) - pos[i].x, double(pos[j].y) - pos[i].y, double(pos[j].z) - pos[i].z};
      double d2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + eps2;
      double inv3 = 1.0 / (d2 * std::sqrt(d2));
      for (int k = 0; k < 3; ++k) a[k] += pos[j].w * r[k] * inv3;
      s += pos[j].w * std::sqrt(d2 - eps2) * inv3;
    }
    const double tol_a = (16.0 + n) * ulp * s;
    const float v0[3] = {vel[i].x, vel[i].y, vel[i].z}, p0[3] = {pos[i].x, pos[i].y, pos[i].z};
    const float gv[3] = {got_vel[i].x, got_vel[i].y, got_vel[i].z};
    const float gp[3] = {got_pos[i].x, got_pos[i].y, got_pos[i].z};
    for (int k = 0; k < 3; ++k) {
      double v = v0[k] + a[k] * dt;
      double tv = tol_a * dt + 2 * ulp * (std::fabs(v0[k]) + std::fabs(a[k] * dt));
      double p = p0[k] + v * dt;
      double tp = tv * dt + 2 * ulp * (std::fabs(p0[k]) + std::fabs(v * dt));
      ref_v.push_back(v);
      tol_v.push_back(tv);
      flat_v.push_back(gv[k]);
      ref_p.push_back(p);
      tol_p.push_back(tp);
      flat_p.push_back(gp[k]);
    }
  }
  // Per-element tolerances: normalise each error by its own bound.
  auto check = [](const std::vector<float>& got, const std::vector<double>& ref, const std::vector<double>& tol,
                  const char* what) {
    Check c;
    double worst = 0.0;
    for (size_t e = 0; e < got.size(); ++e) {
      double err = std::fabs(got[e] - ref[e]);
      if (!(err <= tol[e])) {
        c.detail = fmt::format("{}: body {} component {} is {:.9g}, expected {:.9g} (|error| {:.3g} > bound {:.3g})",
                               what, e / 3, "xyz"[e % 3], got[e], ref[e], err, tol[e]);
        return c;
      }
      worst = std::max(worst, err / tol[e]);
    }
    c.passed = true;
    c.detail = fmt::format("{} within bounds (worst error {:.2f} of its bound)", what, worst);
    return c;
  };
  Check cv = check(flat_v, ref_v, tol_v, "velocities");
  if (!cv.passed) return cv;
  Check cp = check(flat_p, ref_p, tol_p, "positions");
  if (!cp.passed) return cp;
  cp.detail = fmt::format("{} bodies, one step against a double reference: {}; {} (bound per component: "
                          "(16 + n) float ulps of sum_j |a_ij|, then one rounding per update)",
                          n, cv.detail, cp.detail);
  return cp;
}

}  // namespace

RFSIM_WORKLOAD("nbody", "all-pairs n-body step: shared-memory tiles of bodies, rsqrtf, float4 loads",
               "workloads/nbody/nbody.ptx", {"shared", "barrier", "compute", "sfu"}, runNbody);

}  // namespace rfsim::workloads
