// Coulombic potential with a cutoff on a 3-D lattice (LTRF suite,
// register-sensitive; after Parboil's cutcp). The atoms are sorted into
// cubic bins whose side is the cutoff distance, so the atoms within the
// cutoff of a point lie in the 27 bins around the point's bin. Each point
// gets sum q / r * (1 - r^2 / rc^2)^2 over the atoms with r < rc (the
// smoothed potential of cutcp).
//
// Register blocking along x: a bin spans BIN lattice points per dimension
// and a thread owns the NP = 2 * BIN points of one x-row of two bins, so
// its NP points share their 4 x 3 x 3 neighbour bins and each atom's y and
// z distances: NP accumulators live across the atom loop, and for each atom
// the row's NP distances are tested. A warp is 8 rows in y by 4 in z of the
// same bins, so the bin loop is the same for the whole warp and every atom
// load is one broadcast.
#define BIN 8
#define NP (2 * BIN)

// atoms: (x, y, z, q) sorted by bin; bin_start: the first atom of each bin,
// nbx * nby * nbz + 1 entries (bin index (bz * nby + by) * nbx + bx).
// The lattice has nbx * BIN x nby * BIN x nbz * BIN points (nbx even), spacing h,
// point (i, j, k) at (i h, j h, k h); the bins' side is BIN * h = rc.
extern "C" __global__ void __launch_bounds__(128) lt_cutcp(const float4* __restrict__ atoms,
                                                           const int* __restrict__ bin_start,
                                                           float* __restrict__ lattice, int nbx, int nby, int nbz,
                                                           float h, float rc2, float inv_rc2) {
  const int j = blockIdx.y * blockDim.y + threadIdx.y;  // y point
  const int k = blockIdx.z * blockDim.z + threadIdx.z;  // z point
  const int bx = 2 * (blockIdx.x * blockDim.x + threadIdx.x);  // first x bin: the row's points are bx * BIN ..
  const int nx = nbx * BIN, ny = nby * BIN;
  if (bx >= nbx || j >= ny || k >= nbz * BIN) return;
  const int by = j / BIN, bz = k / BIN;
  const float py = j * h, pz = k * h;
  const float px0 = bx * BIN * h;

  float e[NP];
#pragma unroll
  for (int p = 0; p < NP; ++p) e[p] = 0.0f;

  for (int z = max(bz - 1, 0); z <= min(bz + 1, nbz - 1); ++z) {
    for (int y = max(by - 1, 0); y <= min(by + 1, nby - 1); ++y) {
      const int row = (z * nby + y) * nbx;
      // The four bins of this (y, z) are contiguous in the sorted atoms.
      const int first = bin_start[row + max(bx - 1, 0)];
      const int last = bin_start[row + min(bx + 2, nbx - 1) + 1];
      for (int a = first; a < last; ++a) {
        const float4 atom = atoms[a];
        const float dy = py - atom.y, dz = pz - atom.z;
        const float dyz2 = dy * dy + dz * dz;
        if (dyz2 >= rc2) continue;
        float dx = px0 - atom.x;
#pragma unroll
        for (int p = 0; p < NP; ++p) {
          const float r2 = dx * dx + dyz2;
          if (r2 < rc2) {
            const float s = 1.0f - r2 * inv_rc2;
            e[p] += atom.w * rsqrtf(r2) * (s * s);
          }
          dx += h;
        }
      }
    }
  }
  float* out = lattice + (long(k) * ny + j) * nx + bx * BIN;
#pragma unroll
  for (int p = 0; p < NP; ++p) out[p] = e[p];
}
