// Unstructured-grid Euler solver in the style of the finite-volume CFD
// benchmark: conserved variables (density, x/y/z momentum, energy) are
// stored structure-of-arrays, NVAR arrays of nelr cells; every cell has 4
// neighbours (face normals stored per neighbour, negative index = wall or
// far-field boundary).
//   cfd_initialize   every cell gets the far-field state (constant memory);
//   cfd_step_factor  local time step factor from the speed of sound;
//   cfd_compute_flux per cell: own state, velocity, pressure and the flux
//                    contribution of each of the 4 faces (artificial
//                    smoothing, interior neighbour, wall or far-field),
//                    accumulated into 5 residuals; many floats live at once.

#define NDIM 3
#define NNB 4
#define NVAR 5
#define VAR_DENSITY 0
#define VAR_MOMENTUM 1
#define VAR_ENERGY (VAR_MOMENTUM + NDIM)
#define GAMMA 1.4f

__constant__ float c_ff_variable[NVAR];
__constant__ float3 c_ff_flux_momentum_x, c_ff_flux_momentum_y, c_ff_flux_momentum_z, c_ff_flux_energy;

extern "C" __global__ void cfd_initialize(float* __restrict__ variables, int nelr) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nelr) return;
#pragma unroll
  for (int j = 0; j < NVAR; ++j) variables[i + j * nelr] = c_ff_variable[j];
}

__device__ __forceinline__ float pressure_of(float density, float energy, float speed_sqd) {
  return (GAMMA - 1.0f) * (energy - 0.5f * density * speed_sqd);
}

extern "C" __global__ void cfd_step_factor(const float* __restrict__ variables, const float* __restrict__ areas,
                                           float* __restrict__ step_factors, int nelr) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nelr) return;
  const float density = variables[i + VAR_DENSITY * nelr];
  const float mx = variables[i + (VAR_MOMENTUM + 0) * nelr];
  const float my = variables[i + (VAR_MOMENTUM + 1) * nelr];
  const float mz = variables[i + (VAR_MOMENTUM + 2) * nelr];
  const float energy = variables[i + VAR_ENERGY * nelr];
  const float vx = mx / density, vy = my / density, vz = mz / density;
  const float speed_sqd = vx * vx + vy * vy + vz * vz;
  const float p = pressure_of(density, energy, speed_sqd);
  const float c = sqrtf(GAMMA * p / density);
  step_factors[i] = 0.5f / (sqrtf(areas[i]) * (sqrtf(speed_sqd) + c));
}

extern "C" __global__ void cfd_compute_flux(const int* __restrict__ neighbours, const float* __restrict__ normals,
                                            const float* __restrict__ variables, float* __restrict__ fluxes, int nelr,
                                            float smoothing) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nelr) return;

  const float di = variables[i + VAR_DENSITY * nelr];
  const float mxi = variables[i + (VAR_MOMENTUM + 0) * nelr];
  const float myi = variables[i + (VAR_MOMENTUM + 1) * nelr];
  const float mzi = variables[i + (VAR_MOMENTUM + 2) * nelr];
  const float ei = variables[i + VAR_ENERGY * nelr];
  const float vxi = mxi / di, vyi = myi / di, vzi = mzi / di;
  const float sp2i = vxi * vxi + vyi * vyi + vzi * vzi;
  const float pi = pressure_of(di, ei, sp2i);
  const float ci = sqrtf(GAMMA * pi / di);
  const float spi = sqrtf(sp2i);
  // Flux tensor rows of the own cell.
  const float fmx_x = vxi * mxi + pi, fmx_y = vxi * myi, fmx_z = vxi * mzi;
  const float fmy_x = fmx_y, fmy_y = vyi * myi + pi, fmy_z = vyi * mzi;
  const float fmz_x = fmx_z, fmz_y = fmy_z, fmz_z = vzi * mzi + pi;
  const float eh = ei + pi;
  const float fe_x = vxi * eh, fe_y = vyi * eh, fe_z = vzi * eh;

  float fd = 0.0f, fmx = 0.0f, fmy = 0.0f, fmz = 0.0f, fe = 0.0f;
#pragma unroll
  for (int j = 0; j < NNB; ++j) {
    const int nb = neighbours[i + j * nelr];
    const float nx = normals[i + (j * NDIM + 0) * nelr];
    const float ny = normals[i + (j * NDIM + 1) * nelr];
    const float nz = normals[i + (j * NDIM + 2) * nelr];
    const float nlen = sqrtf(nx * nx + ny * ny + nz * nz);
    if (nb >= 0) {
      const float dn = variables[nb + VAR_DENSITY * nelr];
      const float mxn = variables[nb + (VAR_MOMENTUM + 0) * nelr];
      const float myn = variables[nb + (VAR_MOMENTUM + 1) * nelr];
      const float mzn = variables[nb + (VAR_MOMENTUM + 2) * nelr];
      const float en = variables[nb + VAR_ENERGY * nelr];
      const float vxn = mxn / dn, vyn = myn / dn, vzn = mzn / dn;
      const float sp2n = vxn * vxn + vyn * vyn + vzn * vzn;
      const float pn = pressure_of(dn, en, sp2n);
      const float cn = sqrtf(GAMMA * pn / dn);
      // Artificial viscosity.
      const float factor = -nlen * smoothing * 0.5f * (spi + sqrtf(sp2n) + ci + cn);
      fd += factor * (di - dn);
      fe += factor * (ei - en);
      fmx += factor * (mxi - mxn);
      fmy += factor * (myi - myn);
      fmz += factor * (mzi - mzn);
      // Central flux through the face.
      const float eh_n = en + pn;
      fd += 0.5f * (nx * (mxn + mxi) + ny * (myn + myi) + nz * (mzn + mzi));
      fe += 0.5f * (nx * (vxn * eh_n + fe_x) + ny * (vyn * eh_n + fe_y) + nz * (vzn * eh_n + fe_z));
      fmx += 0.5f * (nx * (vxn * mxn + pn + fmx_x) + ny * (vxn * myn + fmx_y) + nz * (vxn * mzn + fmx_z));
      fmy += 0.5f * (nx * (vyn * mxn + fmy_x) + ny * (vyn * myn + pn + fmy_y) + nz * (vyn * mzn + fmy_z));
      fmz += 0.5f * (nx * (vzn * mxn + fmz_x) + ny * (vzn * myn + fmz_y) + nz * (vzn * mzn + pn + fmz_z));
    } else if (nb == -1) {
      // Wall: only the pressure acts.
      fmx += nx * pi;
      fmy += ny * pi;
      fmz += nz * pi;
    } else if (nb == -2) {
      // Far field.
      fd += 0.5f * (nx * (c_ff_variable[VAR_MOMENTUM + 0] + mxi) + ny * (c_ff_variable[VAR_MOMENTUM + 1] + myi) +
                    nz * (c_ff_variable[VAR_MOMENTUM + 2] + mzi));
      fe += 0.5f * (nx * (c_ff_flux_energy.x + fe_x) + ny * (c_ff_flux_energy.y + fe_y) + nz * (c_ff_flux_energy.z + fe_z));
      fmx += 0.5f * (nx * (c_ff_flux_momentum_x.x + fmx_x) + ny * (c_ff_flux_momentum_x.y + fmx_y) +
                     nz * (c_ff_flux_momentum_x.z + fmx_z));
      fmy += 0.5f * (nx * (c_ff_flux_momentum_y.x + fmy_x) + ny * (c_ff_flux_momentum_y.y + fmy_y) +
                     nz * (c_ff_flux_momentum_y.z + fmy_z));
      fmz += 0.5f * (nx * (c_ff_flux_momentum_z.x + fmz_x) + ny * (c_ff_flux_momentum_z.y + fmz_y) +
                     nz * (c_ff_flux_momentum_z.z + fmz_z));
    }
  }
  fluxes[i + VAR_DENSITY * nelr] = fd;
  fluxes[i + (VAR_MOMENTUM + 0) * nelr] = fmx;
  fluxes[i + (VAR_MOMENTUM + 1) * nelr] = fmy;
  fluxes[i + (VAR_MOMENTUM + 2) * nelr] = fmz;
  fluxes[i + VAR_ENERGY * nelr] = fe;
}
