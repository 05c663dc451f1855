// Short-range molecular dynamics (Lennard-Jones with a cutoff):
//   md_lj_celllist   particles sorted by cell with per-cell start/end
//                    indices; every thread takes one particle, visits the 27
//                    surrounding cells (periodic wrap of the cell grid and
//                    minimum-image displacement), loops over the particles in
//                    each cell and accumulates force and potential energy;
//   md_lj_neighlist  the neighbour-list form: a column-major list of up to
//                    max_neigh neighbours per atom, the loop unrolled by 4,
//                    lj1/lj2 force constants, float4 positions and forces.

extern "C" __global__ void md_lj_celllist(const float4* __restrict__ pos, const int* __restrict__ cell_start,
                                          const int* __restrict__ cell_end, int ncx, int ncy, int ncz, float cell_size,
                                          float3 box, float cutoff2, float epsilon, float sigma2, int natoms,
                                          float4* __restrict__ force) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= natoms) return;
  const float4 pi = pos[i];
  const float inv_cell = 1.0f / cell_size;
  const int cx = min((int)(pi.x * inv_cell), ncx - 1);
  const int cy = min((int)(pi.y * inv_cell), ncy - 1);
  const int cz = min((int)(pi.z * inv_cell), ncz - 1);

  float fx = 0.0f, fy = 0.0f, fz = 0.0f, energy = 0.0f;
  for (int dz = -1; dz <= 1; ++dz) {
    const int z = (cz + dz + ncz) % ncz;
    for (int dy = -1; dy <= 1; ++dy) {
      const int y = (cy + dy + ncy) % ncy;
      for (int dx = -1; dx <= 1; ++dx) {
        const int x = (cx + dx + ncx) % ncx;
        const int cell = (z * ncy + y) * ncx + x;
        const int end = cell_end[cell];
        for (int j = cell_start[cell]; j < end; ++j) {
          if (j == i) continue;
          const float4 pj = pos[j];
          float rx = pi.x - pj.x, ry = pi.y - pj.y, rz = pi.z - pj.z;
          rx -= box.x * rintf(rx / box.x);
          ry -= box.y * rintf(ry / box.y);
          rz -= box.z * rintf(rz / box.z);
          const float r2 = rx * rx + ry * ry + rz * rz;
          if (r2 < cutoff2) {
            const float inv_r2 = 1.0f / r2;
            const float sr2 = sigma2 * inv_r2;
            const float sr6 = sr2 * sr2 * sr2;
            const float f = 24.0f * epsilon * sr6 * (2.0f * sr6 - 1.0f) * inv_r2;
            fx += f * rx;
            fy += f * ry;
            fz += f * rz;
            energy += 4.0f * epsilon * sr6 * (sr6 - 1.0f);
          }
        }
      }
    }
  }
  force[i] = make_float4(fx, fy, fz, 0.5f * energy);
}

extern "C" __global__ void md_lj_neighlist(const float4* __restrict__ pos, const int* __restrict__ neigh_list,
                                           const int* __restrict__ neigh_count, int natoms, int max_neigh,
                                           float cutoff2, float lj1, float lj2, float4* __restrict__ force) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= natoms) return;
  const float4 pi = pos[i];
  const int nn = neigh_count[i];
  float4 f = make_float4(0.f, 0.f, 0.f, 0.f);

  int j = 0;
  for (; j + 4 <= nn; j += 4) {
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      const int k = neigh_list[(j + u) * natoms + i];
      const float4 pk = pos[k];
      const float dx = pi.x - pk.x, dy = pi.y - pk.y, dz = pi.z - pk.z;
      const float r2 = dx * dx + dy * dy + dz * dz;
      if (r2 < cutoff2) {
        const float ir2 = 1.0f / r2;
        const float ir6 = ir2 * ir2 * ir2;
        const float s = ir2 * ir6 * (lj1 * ir6 - lj2);
        f.x += dx * s;
        f.y += dy * s;
        f.z += dz * s;
      }
    }
  }
  for (; j < nn; ++j) {
    const int k = neigh_list[j * natoms + i];
    const float4 pk = pos[k];
    const float dx = pi.x - pk.x, dy = pi.y - pk.y, dz = pi.z - pk.z;
    const float r2 = dx * dx + dy * dy + dz * dz;
    if (r2 < cutoff2) {
      const float ir2 = 1.0f / r2;
      const float ir6 = ir2 * ir2 * ir2;
      const float s = ir2 * ir6 * (lj1 * ir6 - lj2);
      f.x += dx * s;
      f.y += dy * s;
      f.z += dz * s;
    }
  }
  force[i] = f;
}
