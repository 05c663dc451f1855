// Lennard-Jones forces in FP64 over a neighbour list, modelled on the
// molecular-dynamics kernel of the RegDem paper's suite (SHOC's md,
// Table 1: 256 threads per block; on the GTX Titan X it is FP64-bound, so
// more occupancy does not help it). Each thread owns one atom and walks its
// neighbours; neighbour j of atom i is neigh[j * atoms + i] (coalesced).
#define BLOCK 256

extern "C" __global__ void __launch_bounds__(BLOCK)
lj_force(double4* force, const double4* pos, const int* neigh, int neighbours, int atoms, double cutsq,
         double lj1, double lj2) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= atoms) return;
  const double4 me = pos[i];
  double fx = 0.0, fy = 0.0, fz = 0.0;
  for (int j = 0; j < neighbours; ++j) {
    const double4 other = pos[neigh[j * atoms + i]];
    const double dx = me.x - other.x, dy = me.y - other.y, dz = me.z - other.z;
    const double r2 = dx * dx + dy * dy + dz * dz;
    if (r2 < cutsq) {
      const double r2inv = 1.0 / r2;
      const double r6inv = r2inv * r2inv * r2inv;
      const double s = r2inv * r6inv * (lj1 * r6inv - lj2);
      fx += dx * s;
      fy += dy * s;
      fz += dz * s;
    }
  }
  force[i] = make_double4(fx, fy, fz, 0.0);
}
