#include <cmath>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

struct Double4 {
  double x, y, z, w;
};

Check runLjForce(rt::Device& dev, Size size) {
  // Small: 16 blocks; large: the paper's 73 728 atoms (228 blocks, grid-
  // limited on 24 SMs: docs/regdem.md) with SHOC's 128 neighbours.
  const int atoms = size == Size::Small ? 16 * 256 : 73728;
  const int neighbours = size == Size::Small ? 32 : 128;
  const double cutsq = 16.0, lj1 = 1.5, lj2 = 2.0;
  Rng rng(11);
  // Atoms on a jittered lattice; neighbours drawn from nearby lattice
  // indices, so that some are inside the cutoff and some are not.
  std::vector<Double4> pos(atoms);
  for (int i = 0; i < atoms; ++i)
    pos[i] = {double(i % 32) * 1.5 + rng.uniform(-0.4f, 0.4f), double((i / 32) % 32) * 1.5 + rng.uniform(-0.4f, 0.4f),
              double(i / 1024) * 1.5 + rng.uniform(-0.4f, 0.4f), 0.0};
  std::vector<int> neigh(size_t(neighbours) * atoms);
  for (int i = 0; i < atoms; ++i)
    for (int j = 0; j < neighbours; ++j) {
      int k = i + int(rng.below(129)) - 64;
      if (k == i) k = i + 65;
      neigh[size_t(j) * atoms + i] = ((k % atoms) + atoms) % atoms;
    }
  DeviceBuffer d_pos(dev, pos), d_neigh(dev, neigh), d_force(dev, size_t(atoms) * sizeof(Double4));
  dev.launch("lj_force", {ceilDiv(atoms, 256)}, {256},
             rt::KernelArgs().ptr(d_force.addr()).ptr(d_pos.addr()).ptr(d_neigh.addr()).i32(neighbours).i32(atoms)
                 .f64(cutsq).f64(lj1).f64(lj2));
  const std::vector<Double4> got = d_force.download<Double4>(atoms);
  // nvcc contracts some products into fma, so the device result may differ
  // from this one in the last bits of each term: the tolerance is relative
  // to the sum of the magnitudes of the terms.
  uint64_t inside = 0;
  for (int i = 0; i < atoms; ++i) {
    double f[3] = {0, 0, 0}, mag[3] = {0, 0, 0};
    for (int j = 0; j < neighbours; ++j) {
      const Double4& o = pos[neigh[size_t(j) * atoms + i]];
      const double d[3] = {pos[i].x - o.x, pos[i].y - o.y, pos[i].z - o.z};
      const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
      if (!(r2 < cutsq)) continue;
      ++inside;
      const double r2inv = 1.0 / r2, r6inv = r2inv * r2inv * r2inv;
      const double s = r2inv * r6inv * (lj1 * r6inv - lj2);
      for (int c = 0; c < 3; ++c) f[c] += d[c] * s, mag[c] += std::fabs(d[c] * s);
    }
    const double g[3] = {got[i].x, got[i].y, got[i].z};
    for (int c = 0; c < 3; ++c)
      if (!(std::fabs(g[c] - f[c]) <= 1e-12 * mag[c] + 1e-300))
        return {false, fmt::format("atom {} force[{}] is {:.17g}, expected {:.17g}", i, c, g[c], f[c])};
    if (got[i].w != 0.0) return {false, fmt::format("atom {} force.w is {}, expected 0", i, got[i].w)};
  }
  return {true, fmt::format("forces on {} atoms over {} neighbours each ({} pairs inside the cutoff)", atoms,
                            neighbours, inside)};
}

}  // namespace

RFSIM_WORKLOAD("lj_force", "Lennard-Jones forces in FP64 over a neighbour list (RegDem suite: md)",
               "workloads/lj_force/lj_force.ptx", {"regdem", "fp64"}, runLjForce);

}  // namespace rfsim::workloads
