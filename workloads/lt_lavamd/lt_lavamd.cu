// Particle interactions in boxes (LTRF suite, register-sensitive; after
// Rodinia's lavaMD): space is divided into nbx x nby x nbz boxes of NPB
// particles each, and every particle interacts with every particle of its
// own box and of the (up to) 26 boxes around it through lavaMD's Gaussian
// potential: with r2 = |ri - rj|^2 and u2 = a2 * r2,
//   v += qj * exp(-u2),   f += qj * 2 exp(-u2) * (ri - rj).
// (The particle itself counts too, as in lavaMD: r2 = 0 adds qj to v.)
//
// One thread per home particle. A neighbour box's NPB particles are read in
// one go (the particle loop is unrolled), so their 4 * NPB coordinates and
// charges are live together with the thread's own particle and its four
// accumulators; boxes are contiguous in memory and a box's particles are
// consecutive threads, so the loads of a warp's 8 boxes are coalesced.
#define NPB 4

// pos: (x, y, z, q) of every particle, box-major (box (bz * nby + by) * nbx +
// bx, then its NPB particles); force: (v, fx, fy, fz) per particle.
extern "C" __global__ void __launch_bounds__(128) lt_lavamd(const float4* __restrict__ pos, float4* __restrict__ force,
                                                            int nbx, int nby, int nbz, float a2) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int nboxes = nbx * nby * nbz;
  if (i >= nboxes * NPB) return;
  const int box = i / NPB;
  const int bx = box % nbx, by = (box / nbx) % nby, bz = box / (nbx * nby);
  const float4 me = pos[i];
  float v = 0.0f, fx = 0.0f, fy = 0.0f, fz = 0.0f;

  for (int z = max(bz - 1, 0); z <= min(bz + 1, nbz - 1); ++z) {
    for (int y = max(by - 1, 0); y <= min(by + 1, nby - 1); ++y) {
      for (int x = max(bx - 1, 0); x <= min(bx + 1, nbx - 1); ++x) {
        const float4* nb = pos + long((z * nby + y) * nbx + x) * NPB;
        float4 other[NPB];
#pragma unroll
        for (int j = 0; j < NPB; ++j) other[j] = nb[j];
#pragma unroll
        for (int j = 0; j < NPB; ++j) {
          const float dx = me.x - other[j].x, dy = me.y - other[j].y, dz = me.z - other[j].z;
          const float r2 = dx * dx + dy * dy + dz * dz;
          const float vij = expf(-a2 * r2);
          const float fs = 2.0f * vij * other[j].w;
          v += other[j].w * vij;
          fx += fs * dx;
          fy += fs * dy;
          fz += fs * dz;
        }
      }
    }
  }
  force[i] = make_float4(v, fx, fy, fz);
}
