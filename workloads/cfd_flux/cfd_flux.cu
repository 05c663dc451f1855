// Per-cell flux of the compressible Euler equations on an unstructured
// mesh, modelled on the CFD kernel of the RegDem paper's suite (Rodinia's
// euler3d compute_flux, Table 1: 192 threads per block, 68 registers).
// Each cell has 4 faces; a face names its neighbour (or -1 for a wall,
// -2 for the far field) and its normal scaled by the face's area. Every
// helper is inlined, so one thread keeps its own state, the neighbour's and
// the flux sums live at once.
#define BLOCK 192
#define NNB 4
#define GAMMA 1.4f
#define SMOOTH 0.2f

struct State {
  float rho, mx, my, mz, e;
};

__constant__ float farfield[5];

__device__ __forceinline__ State load(const float* v, int cell, int cells) {
  State s;
  s.rho = v[cell];
  s.mx = v[cell + cells];
  s.my = v[cell + 2 * cells];
  s.mz = v[cell + 3 * cells];
  s.e = v[cell + 4 * cells];
  return s;
}

__device__ __forceinline__ float pressure(const State& s, float vx, float vy, float vz) {
  return (GAMMA - 1.0f) * (s.e - 0.5f * s.rho * (vx * vx + vy * vy + vz * vz));
}

extern "C" __global__ void __launch_bounds__(BLOCK)
cfd_flux(const int* neighbour, const float* normal, const float* vars, float* fluxes, int cells) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= cells) return;
  const State me = load(vars, i, cells);
  const float vx = me.mx / me.rho, vy = me.my / me.rho, vz = me.mz / me.rho;
  const float p = pressure(me, vx, vy, vz);
  const float c = sqrtf(GAMMA * p / me.rho);
  const float speed = sqrtf(vx * vx + vy * vy + vz * vz);
  float f_rho = 0.0f, f_mx = 0.0f, f_my = 0.0f, f_mz = 0.0f, f_e = 0.0f;
#pragma unroll
  for (int j = 0; j < NNB; ++j) {
    const int nb = neighbour[j * cells + i];
    const float nx = normal[(j * 3 + 0) * cells + i];
    const float ny = normal[(j * 3 + 1) * cells + i];
    const float nz = normal[(j * 3 + 2) * cells + i];
    const float area = sqrtf(nx * nx + ny * ny + nz * nz);
    if (nb >= 0) {
      const State o = load(vars, nb, cells);
      const float ux = o.mx / o.rho, uy = o.my / o.rho, uz = o.mz / o.rho;
      const float po = pressure(o, ux, uy, uz);
      const float co = sqrtf(GAMMA * po / o.rho);
      const float so = sqrtf(ux * ux + uy * uy + uz * uz);
      // Artificial viscosity (a smoothing term) and the averaged fluxes.
      const float k = -area * SMOOTH * 0.5f * (speed + so + c + co);
      f_rho += k * (me.rho - o.rho);
      f_mx += k * (me.mx - o.mx);
      f_my += k * (me.my - o.my);
      f_mz += k * (me.mz - o.mz);
      f_e += k * (me.e - o.e);
      const float hx = 0.5f * (me.mx + o.mx), hy = 0.5f * (me.my + o.my), hz = 0.5f * (me.mz + o.mz);
      f_rho -= nx * hx + ny * hy + nz * hz;
      f_mx -= nx * 0.5f * (me.mx * vx + o.mx * ux + p + po) + ny * 0.5f * (me.mx * vy + o.mx * uy) +
              nz * 0.5f * (me.mx * vz + o.mx * uz);
      f_my -= nx * 0.5f * (me.my * vx + o.my * ux) + ny * 0.5f * (me.my * vy + o.my * uy + p + po) +
              nz * 0.5f * (me.my * vz + o.my * uz);
      f_mz -= nx * 0.5f * (me.mz * vx + o.mz * ux) + ny * 0.5f * (me.mz * vy + o.mz * uy) +
              nz * 0.5f * (me.mz * vz + o.mz * uz + p + po);
      const float ex = 0.5f * ((me.e + p) * vx + (o.e + po) * ux), ey = 0.5f * ((me.e + p) * vy + (o.e + po) * uy),
                  ez = 0.5f * ((me.e + p) * vz + (o.e + po) * uz);
      f_e -= nx * ex + ny * ey + nz * ez;
    } else if (nb == -1) {  // a wall: only pressure acts
      f_mx -= nx * p;
      f_my -= ny * p;
      f_mz -= nz * p;
    } else {  // the far field
      const float fr = farfield[0], fmx = farfield[1], fmy = farfield[2], fmz = farfield[3], fe = farfield[4];
      const float wx = fmx / fr, wy = fmy / fr, wz = fmz / fr;
      const float pf = (GAMMA - 1.0f) * (fe - 0.5f * fr * (wx * wx + wy * wy + wz * wz));
      f_rho -= 0.5f * (nx * (me.mx + fmx) + ny * (me.my + fmy) + nz * (me.mz + fmz));
      f_mx -= 0.5f * (nx * (me.mx * vx + fmx * wx + p + pf) + ny * (me.mx * vy + fmx * wy) + nz * (me.mx * vz + fmx * wz));
      f_my -= 0.5f * (nx * (me.my * vx + fmy * wx) + ny * (me.my * vy + fmy * wy + p + pf) + nz * (me.my * vz + fmy * wz));
      f_mz -= 0.5f * (nx * (me.mz * vx + fmz * wx) + ny * (me.mz * vy + fmz * wy) + nz * (me.mz * vz + fmz * wz + p + pf));
      f_e -= 0.5f * (nx * ((me.e + p) * vx + (fe + pf) * wx) + ny * ((me.e + p) * vy + (fe + pf) * wy) +
                     nz * ((me.e + p) * vz + (fe + pf) * wz));
    }
  }
  fluxes[i] = f_rho;
  fluxes[i + cells] = f_mx;
  fluxes[i + 2 * cells] = f_my;
  fluxes[i + 3 * cells] = f_mz;
  fluxes[i + 4 * cells] = f_e;
}
