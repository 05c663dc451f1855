#include <array>
#include <cmath>
#include <utility>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

// cfd.cu's constants (Rodinia euler3d's).
constexpr float kGamma = 1.4f;
constexpr int kNnb = 4, kNvar = 5, kRk = 3;
constexpr int kDensity = 0, kMomentum = 1, kDensityEnergy = 4;
constexpr float kSmoothing = 0.2f;
constexpr float kFfMach = 1.2f;

struct F3 {
  float x, y, z;
};
struct FluxContribution {
  F3 mx, my, mz, de;
};

// The device helpers, operation for operation (nvcc contracts some of the
// multiply-adds into fmas; the host rounds each product: the only source of
// differences).
F3 velocityOf(float density, F3 m) { return {m.x / density, m.y / density, m.z / density}; }
float speedSqd(F3 v) { return v.x * v.x + v.y * v.y + v.z * v.z; }
float pressureOf(float density, float density_energy, F3 v) {
  return (kGamma - 1.0f) * (density_energy - 0.5f * density * speedSqd(v));
}
float speedOfSound(float density, float pressure) { return std::sqrt(kGamma * pressure / density); }
FluxContribution fluxContribution(F3 m, float density_energy, float pressure, F3 v) {
  FluxContribution fc;
  fc.mx = {v.x * m.x + pressure, v.x * m.y, v.x * m.z};
  fc.my = {fc.mx.y, v.y * m.y + pressure, v.y * m.z};
  fc.mz = {fc.mx.z, fc.my.z, v.z * m.z + pressure};
  float de_p = density_energy + pressure;
  fc.de = {v.x * de_p, v.y * de_p, v.z * de_p};
  return fc;
}

struct Mesh {
  int nelr = 0;
  std::vector<int> surrounding;  // [i + j * nelr]
  std::vector<float> normals;    // [i + (j + d * NNB) * nelr]
  std::vector<float> areas;
};

// A width x height grid of cells, faces left, right, down, up. The left and
// right edges are far field (-2), the bottom and top edges walls (-1), and so
// are the faces of the cells around a rectangular obstacle in the middle
// (its cells are still computed: they see walls all round). Face normals
// point out of the cell, scaled by face areas in [0.9, 1.1), with a small z
// component; volumes in [0.8, 1.2).
Mesh makeMesh(int width, int height, Rng& rng) {
  Mesh m;
  const int n = width * height;
  m.nelr = n;
  m.surrounding.resize(size_t(n) * kNnb);
  m.normals.resize(size_t(n) * kNnb * 3);
  m.areas.resize(n);
  auto obstacle = [&](int x, int y) {
    return x >= width / 3 && x < width / 3 + width / 6 && y >= 2 * height / 5 && y < 3 * height / 5;
  };
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const int i = y * width + x;
      const int dx[kNnb] = {-1, 1, 0, 0}, dy[kNnb] = {0, 0, -1, 1};
      for (int j = 0; j < kNnb; ++j) {
        int nx = x + dx[j], ny = y + dy[j];
        int nb;
        if (nx < 0 || nx >= width) {
          nb = -2;
        } else if (ny < 0 || ny >= height || obstacle(nx, ny) != obstacle(x, y)) {
          nb = -1;
        } else {
          nb = ny * width + nx;
        }
        m.surrounding[i + j * n] = nb;
        float s = rng.uniform(0.9f, 1.1f);
        m.normals[i + (j + 0 * kNnb) * n] = float(dx[j]) * s;
        m.normals[i + (j + 1 * kNnb) * n] = float(dy[j]) * s;
        m.normals[i + (j + 2 * kNnb) * n] = rng.uniform(-0.05f, 0.05f);
      }
      m.areas[i] = rng.uniform(0.8f, 1.2f);
    }
  }
  return m;
}

struct FarField {
  float variable[kNvar];
  float flux[12];  // momentum_x xyz, momentum_y xyz, momentum_z xyz, density_energy xyz
};

// Rodinia's far-field state: Mach 1.2 at zero angle of attack.
FarField makeFarField() {
  FarField ff;
  const float density = 1.4f, pressure = 1.0f;
  const float speed_of_sound = std::sqrt(kGamma * pressure / density);
  const float speed = kFfMach * speed_of_sound;
  const F3 velocity = {speed, 0.0f, 0.0f};
  ff.variable[kDensity] = density;
  ff.variable[kMomentum + 0] = density * velocity.x;
  ff.variable[kMomentum + 1] = density * velocity.y;
  ff.variable[kMomentum + 2] = density * velocity.z;
  ff.variable[kDensityEnergy] = density * (0.5f * (speed * speed)) + pressure / (kGamma - 1.0f);
  F3 m = {ff.variable[kMomentum], ff.variable[kMomentum + 1], ff.variable[kMomentum + 2]};
  F3 v = velocityOf(density, m);
  const float de = ff.variable[kDensityEnergy];
  FluxContribution fc = fluxContribution(m, de, pressureOf(density, de, v), v);
  const float flat[12] = {fc.mx.x, fc.mx.y, fc.mx.z, fc.my.x, fc.my.y, fc.my.z,
                          fc.mz.x, fc.mz.y, fc.mz.z, fc.de.x, fc.de.y, fc.de.z};
  std::copy(flat, flat + 12, ff.flux);
  return ff;
}

// The device's step, operation for operation in the same order:
// cfd_step_factor, then cfd_compute_flux (cell_flux, neighbor_flux) and
// cfd_time_step per Runge-Kutta stage.
struct Reference {
  const Mesh& mesh;
  const FarField& ff;

  void stepFactors(const std::vector<float>& var, std::vector<float>& out) const {
    const int n = mesh.nelr;
    for (int i = 0; i < n; ++i) {
      float density = var[i + kDensity * n];
      F3 m = {var[i + (kMomentum + 0) * n], var[i + (kMomentum + 1) * n], var[i + (kMomentum + 2) * n]};
      float de = var[i + kDensityEnergy * n];
      F3 v = velocityOf(density, m);
      float ssq = speedSqd(v);
      float p = pressureOf(density, de, v);
      float c = speedOfSound(density, p);
      out[i] = 0.5f / (std::sqrt(mesh.areas[i]) * (std::sqrt(ssq) + c));
    }
  }

  struct Vars {
    float density;
    F3 m;
    float de;
  };
  Vars load(const std::vector<float>& var, int i) const {
    const int n = mesh.nelr;
    return {var[i + kDensity * n], {var[i + (kMomentum + 0) * n], var[i + (kMomentum + 1) * n],
                                    var[i + (kMomentum + 2) * n]},
            var[i + kDensityEnergy * n]};
  }

  // neighbor_flux: {density, momentum x, y, z, density energy, factor}.
  std::array<float, 6> neighborFlux(const std::vector<float>& var, int nb, F3 nrm, float speed_sound_i) const {
    Vars c = load(var, nb);
    F3 v = velocityOf(c.density, c.m);
    float ssq = speedSqd(v);
    float p = pressureOf(c.density, c.de, v);
    float speed_sound = std::sqrt(ssq) + speedOfSound(c.density, p);
    FluxContribution fc = fluxContribution(c.m, c.de, p, v);
    float normal_len = std::sqrt(nrm.x * nrm.x + nrm.y * nrm.y + nrm.z * nrm.z);
    float factor = -normal_len * kSmoothing * 0.5f * (speed_sound_i + speed_sound);
    F3 h = {0.5f * nrm.x, 0.5f * nrm.y, 0.5f * nrm.z};
    return {h.x * c.m.x + h.y * c.m.y + h.z * c.m.z - factor * c.density,
            h.x * fc.mx.x + h.y * fc.mx.y + h.z * fc.mx.z - factor * c.m.x,
            h.x * fc.my.x + h.y * fc.my.y + h.z * fc.my.z - factor * c.m.y,
            h.x * fc.mz.x + h.y * fc.mz.y + h.z * fc.mz.z - factor * c.m.z,
            h.x * fc.de.x + h.y * fc.de.y + h.z * fc.de.z - factor * c.de,
            factor};
  }

  // cell_flux for every cell.
  void fluxes(const std::vector<float>& var, std::vector<float>& out) const {
    const int n = mesh.nelr;
    for (int i = 0; i < n; ++i) {
      Vars c = load(var, i);
      F3 v = velocityOf(c.density, c.m);
      float ssq = speedSqd(v);
      float p = pressureOf(c.density, c.de, v);
      float speed_sound = std::sqrt(ssq) + speedOfSound(c.density, p);
      float fd = 0, fmx = 0, fmy = 0, fmz = 0, fde = 0, factor_sum = 0;
      F3 hs = {0, 0, 0};
      for (int j = 0; j < kNnb; ++j) {
        int nb = mesh.surrounding[i + j * n];
        F3 nrm = {mesh.normals[i + (j + 0 * kNnb) * n], mesh.normals[i + (j + 1 * kNnb) * n],
                  mesh.normals[i + (j + 2 * kNnb) * n]};
        if (nb >= 0) {
          std::array<float, 6> r = neighborFlux(var, nb, nrm, speed_sound);
          fd += r[0];
          fmx += r[1];
          fmy += r[2];
          fmz += r[3];
          fde += r[4];
          factor_sum += r[5];
          hs = {hs.x + 0.5f * nrm.x, hs.y + 0.5f * nrm.y, hs.z + 0.5f * nrm.z};
        } else if (nb == -1) {
          fmx += nrm.x * p;
          fmy += nrm.y * p;
          fmz += nrm.z * p;
        } else if (nb == -2) {
          F3 h = {0.5f * nrm.x, 0.5f * nrm.y, 0.5f * nrm.z};
          const float* fv = ff.variable;
          const float* fc = ff.flux;
          fd += h.x * fv[kMomentum + 0] + h.y * fv[kMomentum + 1] + h.z * fv[kMomentum + 2];
          fmx += h.x * fc[0] + h.y * fc[1] + h.z * fc[2];
          fmy += h.x * fc[3] + h.y * fc[4] + h.z * fc[5];
          fmz += h.x * fc[6] + h.y * fc[7] + h.z * fc[8];
          fde += h.x * fc[9] + h.y * fc[10] + h.z * fc[11];
          hs = {hs.x + h.x, hs.y + h.y, hs.z + h.z};
        }
      }
      FluxContribution fc = fluxContribution(c.m, c.de, p, v);
      F3 s = hs;
      fd += s.x * c.m.x + s.y * c.m.y + s.z * c.m.z + factor_sum * c.density;
      fmx += s.x * fc.mx.x + s.y * fc.mx.y + s.z * fc.mx.z + factor_sum * c.m.x;
      fmy += s.x * fc.my.x + s.y * fc.my.y + s.z * fc.my.z + factor_sum * c.m.y;
      fmz += s.x * fc.mz.x + s.y * fc.mz.y + s.z * fc.mz.z + factor_sum * c.m.z;
      fde += s.x * fc.de.x + s.y * fc.de.y + s.z * fc.de.z + factor_sum * c.de;
      out[i + kDensity * n] = fd;
      out[i + (kMomentum + 0) * n] = fmx;
      out[i + (kMomentum + 1) * n] = fmy;
      out[i + (kMomentum + 2) * n] = fmz;
      out[i + kDensityEnergy * n] = fde;
    }
  }

  void timeStep(int k, const std::vector<float>& old, std::vector<float>& var, const std::vector<float>& step,
                const std::vector<float>& flux) const {
    const int n = mesh.nelr;
    for (int i = 0; i < n; ++i) {
      float factor = step[i] / float(kRk + 1 - k);
      for (int v = 0; v < kNvar; ++v) var[i + v * n] = old[i + v * n] + factor * flux[i + v * n];
    }
  }
};

Check runCfd(rt::Device& dev, Size size) {
  const int width = size == Size::Small ? 24 : 128, height = size == Size::Small ? 24 : 128;
  const int iterations = size == Size::Small ? 2 : 4;
  Rng rng(1949);
  Mesh mesh = makeMesh(width, height, rng);
  const int n = mesh.nelr;
  FarField ff = makeFarField();

  // The far-field state, perturbed per cell so that no flux cancels exactly.
  std::vector<float> var(size_t(n) * kNvar);
  for (int i = 0; i < n; ++i) {
    var[i + kDensity * n] = ff.variable[kDensity] * rng.uniform(0.95f, 1.05f);
    for (int d = 0; d < 3; ++d) var[i + (kMomentum + d) * n] = ff.variable[kMomentum + d] + rng.uniform(-0.05f, 0.05f);
    var[i + kDensityEnergy * n] = ff.variable[kDensityEnergy] * rng.uniform(0.98f, 1.02f);
  }

  dev.memcpyHtoD(dev.symbolAddress("ff_variable"), ff.variable, sizeof ff.variable);
  dev.memcpyHtoD(dev.symbolAddress("ff_flux_contribution"), ff.flux, sizeof ff.flux);
  DeviceBuffer d_surr(dev, mesh.surrounding), d_normals(dev, mesh.normals), d_areas(dev, mesh.areas);
  DeviceBuffer d_var(dev, var), d_old(dev, var.size() * sizeof(float)), d_flux(dev, var.size() * sizeof(float));
  DeviceBuffer d_step(dev, n * sizeof(float));

  const uint32_t block = 128, grid = ceilDiv(n, block);
  const int count = n * kNvar;
  int launches = 0;
  for (int it = 0; it < iterations; ++it) {
    dev.launch("cfd_copy", {ceilDiv(count, block)}, {block},
               rt::KernelArgs().ptr(d_old.addr()).ptr(d_var.addr()).i32(count));
    dev.launch("cfd_step_factor", {grid}, {block},
               rt::KernelArgs().ptr(d_var.addr()).ptr(d_areas.addr()).ptr(d_step.addr()).i32(n));
    launches += 2;
    for (int k = 0; k < kRk; ++k) {
      dev.launch("cfd_compute_flux", {grid}, {block},
                 rt::KernelArgs()
                     .ptr(d_surr.addr())
                     .ptr(d_normals.addr())
                     .ptr(d_var.addr())
                     .ptr(d_flux.addr())
                     .i32(n));
      dev.launch("cfd_time_step", {grid}, {block},
                 rt::KernelArgs()
                     .i32(k)
                     .i32(kRk)
                     .ptr(d_old.addr())
                     .ptr(d_var.addr())
                     .ptr(d_step.addr())
                     .ptr(d_flux.addr())
                     .i32(n));
      launches += 2;
    }
  }

  Reference ref_model{mesh, ff};
  std::vector<float> ref = var, old(var.size()), flux(var.size()), step(n);
  for (int it = 0; it < iterations; ++it) {
    old = ref;
    ref_model.stepFactors(ref, step);
    for (int k = 0; k < kRk; ++k) {
      ref_model.fluxes(ref, flux);
      ref_model.timeStep(k, old, ref, step, flux);
    }
  }
  double max_change = 0.0;
  for (size_t k = 0; k < ref.size(); ++k) {
    if (!std::isfinite(ref[k])) return Check{false, fmt::format("the CPU reference diverged (element {})", k)};
    max_change = std::max(max_change, double(std::fabs(ref[k] - var[k])));
  }

  // Float roundings differ only where nvcc fused a multiply-add (measured:
  // largest absolute error under 1e-6 on values of order 1); the check asks
  // for 1e-4 relative, plus 1e-5 absolute for the momentum components near
  // zero.
  std::vector<double> expected(ref.begin(), ref.end());
  Check c = compareFloats(d_var.download<float>(ref.size()), expected, 1e-4, 1e-5, "cell variables");
  c.detail = fmt::format("{}x{} cells (walls at the top, bottom and round an obstacle, far field left and right), "
                         "{} iterations x {} Runge-Kutta stages ({} launches), largest change of a variable {:.3g}; {}",
                         width, height, iterations, kRk, launches, max_change, c.detail);
  return c;
}

}  // namespace

RFSIM_WORKLOAD("cfd",
               "reduced Rodinia euler3d: per-cell fluxes with non-inlined velocity/pressure/speed-of-sound/flux "
               "helpers, Runge-Kutta time steps (-rdc, weak linkage: full ABI)",
               "workloads/cfd/cfd.ptx", {"calls", "compute", "constant", "multi-launch"}, runCfd,
               {"workloads/cfd/lib/cfd_lib.ptx"});

}  // namespace rfsim::workloads
