#include <cmath>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr int kBin = 8;  // lattice points per bin side (BIN in the kernel)

Check runCutcp(rt::Device& dev, Size size) {
  // Small: 128 x 64 x 32 lattice points (16 x 8 x 4 bins, 0.5 atoms per
  // bin on average: 256 atoms), 16384 threads of 16 points; Large: 128 x
  // 128 x 128 points (16^3 bins), 4 atoms per bin (16384 atoms). Spacing
  // 0.5 A, cutoff 4 A = the bin side.
  const int nbx = 16;
  const int nby = size == Size::Small ? 8 : 16;
  const int nbz = size == Size::Small ? 4 : 16;
  const int natoms = (size == Size::Small ? 1 : 8) * nbx * nby * nbz / 2;
  const float h = 0.5f, rc = h * kBin, rc2 = rc * rc, inv_rc2 = 1.0f / rc2;
  const float ext[3] = {float(nbx) * rc, float(nby) * rc, float(nbz) * rc};
  Rng rng(34);
  // Atoms anywhere in the box, charges of both signs; sorted by bin.
  struct Atom {
    float x, y, z, q;
    int bin;
  };
  std::vector<Atom> atoms(natoms);
  for (Atom& a : atoms) {
    a.x = rng.uniform(0.0f, ext[0]), a.y = rng.uniform(0.0f, ext[1]), a.z = rng.uniform(0.0f, ext[2]);
    a.q = rng.uniform(-1.0f, 1.0f);
    const int bx = std::min(int(a.x / rc), nbx - 1), by = std::min(int(a.y / rc), nby - 1),
              bz = std::min(int(a.z / rc), nbz - 1);
    a.bin = (bz * nby + by) * nbx + bx;
  }
  std::stable_sort(atoms.begin(), atoms.end(), [](const Atom& a, const Atom& b) { return a.bin < b.bin; });
  const int nbins = nbx * nby * nbz;
  std::vector<int> bin_start(nbins + 1, 0);
  for (const Atom& a : atoms) ++bin_start[a.bin + 1];
  for (int b = 0; b < nbins; ++b) bin_start[b + 1] += bin_start[b];
  std::vector<float> packed;
  for (const Atom& a : atoms) packed.insert(packed.end(), {a.x, a.y, a.z, a.q});

  const int nx = nbx * kBin, ny = nby * kBin, nz = nbz * kBin;
  const size_t points = size_t(nx) * ny * nz;
  DeviceBuffer d_atoms(dev, packed), d_bins(dev, bin_start), d_lattice(dev, points * sizeof(float));
  // A thread per row of 16 points (two bins); blocks of 8 y x 16 z rows.
  const rt::Dim3 block{1, 8, 16};
  dev.launch("lt_cutcp", {ceilDiv(nbx / 2, block.x), ceilDiv(ny, block.y), ceilDiv(nz, block.z)}, block,
             rt::KernelArgs()
                 .ptr(d_atoms.addr())
                 .ptr(d_bins.addr())
                 .ptr(d_lattice.addr())
                 .i32(nbx)
                 .i32(nby)
                 .i32(nbz)
                 .f32(h)
                 .f32(rc2)
                 .f32(inv_rc2));
  const std::vector<float> got = d_lattice.download<float>(points);

  // Every point against every atom, in double; per point also the sum of the
  // terms' magnitudes, which bounds the float sum's rounding error.
  std::vector<double> want(points, 0.0), magnitude(points, 0.0);
  for (const Atom& a : atoms) {
    const int i0 = std::max(0, int(std::floor((a.x - rc) / h))), i1 = std::min(nx - 1, int(std::ceil((a.x + rc) / h)));
    const int j0 = std::max(0, int(std::floor((a.y - rc) / h))), j1 = std::min(ny - 1, int(std::ceil((a.y + rc) / h)));
    const int k0 = std::max(0, int(std::floor((a.z - rc) / h))), k1 = std::min(nz - 1, int(std::ceil((a.z + rc) / h)));
    for (int k = k0; k <= k1; ++k)
      for (int j = j0; j <= j1; ++j)
        for (int i = i0; i <= i1; ++i) {
          const double dx = double(i) * h - a.x, dy = double(j) * h - a.y, dz = double(k) * h - a.z;
          const double r2 = dx * dx + dy * dy + dz * dz;
          if (r2 >= double(rc2)) continue;
          const double s = 1.0 - r2 / rc2;
          const double term = a.q / std::sqrt(r2) * s * s;
          const size_t at = (size_t(k) * ny + j) * nx + i;
          want[at] += term;
          magnitude[at] += std::fabs(term);
        }
  }
  // rsqrtf is within 2 ulps and the lattice distances carry the rounding of
  // i * h - x (dx accumulates h in the kernel): each term within about
  // 1e-5 of its magnitude, so a point within 1e-5 of the sum of its terms'
  // magnitudes (plus 1e-6 for the points no atom reaches).
  Check c;
  double worst = 0.0;
  for (size_t p = 0; p < points; ++p) {
    const double err = std::fabs(got[p] - want[p]), tol = 1e-6 + 1e-5 * magnitude[p];
    if (!(err <= tol)) {
      c.detail = fmt::format("lattice point {} is {:.9g}, expected {:.9g} (|error| {:.3g} > 1e-6 + 1e-5 * {:.4g}, the sum "
                             "of the terms' magnitudes)",
                             p, got[p], want[p], err, magnitude[p]);
      return c;
    }
    worst = std::max(worst, err / tol);
  }
  c.passed = true;
  c.detail = fmt::format("{} lattice points ({}x{}x{}, {} atoms in {} bins), worst point at {:.0f}% of its tolerance "
                         "(1e-6 + 1e-5 * the sum of its terms' magnitudes)",
                         points, nx, ny, nz, natoms, nbins, 100.0 * worst);
  return c;
}

}  // namespace

RFSIM_WORKLOAD("lt_cutcp",
               "Coulombic potential with a cutoff over atom bins, 16 lattice points per thread in registers (LTRF suite)",
               "workloads/lt_cutcp/lt_cutcp.ptx", {"ltrf", "regsens", "sfu", "compute"}, runCutcp);

}  // namespace rfsim::workloads
