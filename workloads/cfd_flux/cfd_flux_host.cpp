#include <cmath>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr int kNnb = 4;
constexpr double kGamma = 1.4, kSmooth = 0.2;

struct S {
  double rho, mx, my, mz, e;
};

double pressure(const S& s) {
  const double vx = s.mx / s.rho, vy = s.my / s.rho, vz = s.mz / s.rho;
  return (kGamma - 1.0) * (s.e - 0.5 * s.rho * (vx * vx + vy * vy + vz * vz));
}

// The same fluxes as the kernel, in double, for one face against a state `o`
// (a neighbour or the far field; the far field has no smoothing term).
void face(const S& me, const S& o, double nx, double ny, double nz, bool smooth, double area, double f[5]) {
  const double vx = me.mx / me.rho, vy = me.my / me.rho, vz = me.mz / me.rho, p = pressure(me);
  const double ux = o.mx / o.rho, uy = o.my / o.rho, uz = o.mz / o.rho, po = pressure(o);
  if (smooth) {
    const double c = std::sqrt(kGamma * p / me.rho), co = std::sqrt(kGamma * po / o.rho);
    const double k = -area * kSmooth * 0.5 *
                     (std::sqrt(vx * vx + vy * vy + vz * vz) + std::sqrt(ux * ux + uy * uy + uz * uz) + c + co);
    f[0] += k * (me.rho - o.rho), f[1] += k * (me.mx - o.mx), f[2] += k * (me.my - o.my);
    f[3] += k * (me.mz - o.mz), f[4] += k * (me.e - o.e);
  }
  f[0] -= 0.5 * (nx * (me.mx + o.mx) + ny * (me.my + o.my) + nz * (me.mz + o.mz));
  f[1] -= 0.5 * (nx * (me.mx * vx + o.mx * ux + p + po) + ny * (me.mx * vy + o.mx * uy) + nz * (me.mx * vz + o.mx * uz));
  f[2] -= 0.5 * (nx * (me.my * vx + o.my * ux) + ny * (me.my * vy + o.my * uy + p + po) + nz * (me.my * vz + o.my * uz));
  f[3] -= 0.5 * (nx * (me.mz * vx + o.mz * ux) + ny * (me.mz * vy + o.mz * uy) + nz * (me.mz * vz + o.mz * uz + p + po));
  f[4] -= 0.5 * (nx * ((me.e + p) * vx + (o.e + po) * ux) + ny * ((me.e + p) * vy + (o.e + po) * uy) +
                 nz * ((me.e + p) * vz + (o.e + po) * uz));
}

Check runCfdFlux(rt::Device& dev, Size size) {
  // Small: 16 blocks; large: the paper's 1008 blocks of 192 (fvcorr.193K).
  const int cells = size == Size::Small ? 16 * 192 : 1008 * 192;
  Rng rng(13);
  std::vector<float> vars(size_t(cells) * 5), normal(size_t(cells) * kNnb * 3);
  std::vector<int> nb(size_t(cells) * kNnb);
  for (int i = 0; i < cells; ++i) {
    const float rho = rng.uniform(0.5f, 1.5f), mx = rng.uniform(-0.3f, 0.3f), my = rng.uniform(-0.3f, 0.3f),
                mz = rng.uniform(-0.3f, 0.3f), p = rng.uniform(0.5f, 1.5f);
    const float e = p / 0.4f + 0.5f * (mx * mx + my * my + mz * mz) / rho;
    const float v[5] = {rho, mx, my, mz, e};
    for (int k = 0; k < 5; ++k) vars[size_t(k) * cells + i] = v[k];
    for (int j = 0; j < kNnb; ++j) {
      const uint32_t kind = rng.below(16);
      int n = i + int(rng.below(257)) - 128;
      n = ((n % cells) + cells) % cells;
      nb[size_t(j) * cells + i] = kind == 0 ? -1 : kind == 1 ? -2 : n;
      for (int d = 0; d < 3; ++d) normal[size_t(j * 3 + d) * cells + i] = rng.uniform(-1.0f, 1.0f);
    }
  }
  const float ff[5] = {1.0f, 0.1f, 0.05f, 0.0f, 2.6f};
  dev.memcpyHtoD(dev.symbolAddress("farfield"), ff, sizeof ff);
  DeviceBuffer d_nb(dev, nb), d_normal(dev, normal), d_vars(dev, vars), d_flux(dev, vars.size() * 4);
  dev.launch("cfd_flux", {ceilDiv(cells, 192)}, {192},
             rt::KernelArgs().ptr(d_nb.addr()).ptr(d_normal.addr()).ptr(d_vars.addr()).ptr(d_flux.addr()).i32(cells));
  std::vector<double> ref(vars.size());
  const S far{ff[0], ff[1], ff[2], ff[3], ff[4]};
  for (int i = 0; i < cells; ++i) {
    auto state = [&](int c) {
      return S{vars[c], vars[size_t(cells) + c], vars[2 * size_t(cells) + c], vars[3 * size_t(cells) + c],
               vars[4 * size_t(cells) + c]};
    };
    const S me = state(i);
    double f[5] = {0, 0, 0, 0, 0};
    for (int j = 0; j < kNnb; ++j) {
      const double nx = normal[size_t(j * 3) * cells + i], ny = normal[size_t(j * 3 + 1) * cells + i],
                   nz = normal[size_t(j * 3 + 2) * cells + i];
      const int n = nb[size_t(j) * cells + i];
      if (n >= 0) {
        face(me, state(n), nx, ny, nz, true, std::sqrt(nx * nx + ny * ny + nz * nz), f);
      } else if (n == -1) {
        const double p = pressure(me);
        f[1] -= nx * p, f[2] -= ny * p, f[3] -= nz * p;
      } else {
        face(me, far, nx, ny, nz, false, 0.0, f);
      }
    }
    for (int k = 0; k < 5; ++k) ref[size_t(k) * cells + i] = f[k];
  }
  return compareFloats(d_flux.download<float>(vars.size()), ref, 1e-5, 1e-5,
                       fmt::format("flux components of {} cells with {} faces each", cells, kNnb));
}

}  // namespace

RFSIM_WORKLOAD("cfd_flux", "Euler fluxes per cell of an unstructured mesh, every helper inlined (RegDem suite: cfd)",
               "workloads/cfd_flux/cfd_flux.ptx", {"regdem"}, runCfdFlux);

}  // namespace rfsim::workloads
