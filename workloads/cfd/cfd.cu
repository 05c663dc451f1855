// A reduced Rodinia euler3d (CFD solver, CARS Table I): a finite-volume
// solver of the 3-D Euler equations on an unstructured mesh of cells with 4
// faces each. Every iteration the host runs
//   cfd_copy           old variables := variables
//   cfd_step_factor    per cell, the local time step 0.5 / (sqrt(volume) * (|v| + c))
//   RK times:  cfd_compute_flux  per cell, the fluxes through its 4 faces
//              cfd_time_step     variables := old + step / (RK + 1 - k) * fluxes
// as Rodinia does. Call chains of the flux (depth 4):
//   cfd_compute_flux -> cell_flux -> neighbor_flux -> compute_pressure -> compute_speed_sqd
// cell_flux computes the cell's own state with load_cell, compute_velocity,
// compute_speed_sqd, compute_pressure and compute_speed_of_sound, and calls
// neighbor_flux for every inner face, which does the same for the
// neighbour and adds compute_flux_contribution.
// Reductions against Rodinia, to keep fewer values live across the calls of
// the face loop (the same terms, summed in another order): the neighbour's
// side of a face (its half of the face-centred flux minus the viscosity
// factor times its variables) comes back from neighbor_flux as one sum per
// variable; the cell's side (its own flux contribution and variables) is
// applied once after the loop, to the sum of the half-normals and the sum of
// the viscosity factors of its faces; its speed and speed of sound are added
// once. Still, more values are live across the loop's calls than there are
// callee-saved registers, so cell_flux also spills (as Rodinia's flux kernel
// does when its helpers are calls).
//
// Variables are stored structure-of-arrays: variables[i + v * nelr] with v =
// density, momentum x, y, z, density energy. Neighbour j of cell i is
// elements_surrounding[i + j * nelr] (-1: wall, -2: far field), its face
// normal (scaled by the face area) normals[i + (j + d * NNB) * nelr].
//
// The helpers are the paper's library module (CARS compiles the common
// device functions as a separate module): lib/cfd_lib.cu, its own
// translation unit, which the model links with this one (ptx/link.h), so the
// kernels' calls into it follow the full ABI. Within the library, `inline`
// gives the helpers weak linkage (.weak), so calls to them follow the full
// ABI too and values live across a call sit in callee-saved registers (R16
// up) that the callee saves and restores. Separate compilation keeps them
// real calls:
// rfsim: rdc
// rfsim: link lib/cfd_lib

#include "lib/cfd_lib.cuh"

extern "C" __global__ void cfd_copy(float* __restrict__ dst, const float* __restrict__ src, int count) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < count) dst[k] = src[k];
}

extern "C" __global__ void cfd_step_factor(const float* __restrict__ variables, const float* __restrict__ areas,
                                           float* __restrict__ step_factors, int nelr) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nelr) return;
  float density = variables[i + VAR_DENSITY * nelr];
  float3 momentum = make_float3(variables[i + (VAR_MOMENTUM + 0) * nelr], variables[i + (VAR_MOMENTUM + 1) * nelr],
                                variables[i + (VAR_MOMENTUM + 2) * nelr]);
  float density_energy = variables[i + VAR_DENSITY_ENERGY * nelr];
  float3 velocity = compute_velocity(density, momentum);
  float speed_sqd = compute_speed_sqd(velocity);
  float pressure = compute_pressure(density, density_energy, velocity);
  float speed_of_sound = compute_speed_of_sound(density, pressure);
  step_factors[i] = 0.5f / (sqrtf(areas[i]) * (sqrtf(speed_sqd) + speed_of_sound));
}

extern "C" __global__ void cfd_compute_flux(const int* __restrict__ elements_surrounding,
                                            const float* __restrict__ normals, const float* __restrict__ variables,
                                            float* __restrict__ fluxes, int nelr) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nelr) return;
  Flux f = cell_flux(elements_surrounding, normals, variables, i, nelr);
  fluxes[i + VAR_DENSITY * nelr] = f.density;
  fluxes[i + (VAR_MOMENTUM + 0) * nelr] = f.momentum_x;
  fluxes[i + (VAR_MOMENTUM + 1) * nelr] = f.momentum_y;
  fluxes[i + (VAR_MOMENTUM + 2) * nelr] = f.momentum_z;
  fluxes[i + VAR_DENSITY_ENERGY * nelr] = f.density_energy;
}

// Runge-Kutta stage k of RK: variables := old + step_factor / (RK + 1 - k) * fluxes.
extern "C" __global__ void cfd_time_step(int k, int rk, const float* __restrict__ old_variables,
                                         float* __restrict__ variables, const float* __restrict__ step_factors,
                                         const float* __restrict__ fluxes, int nelr) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nelr) return;
  float factor = step_factors[i] / float(rk + 1 - k);
  for (int v = 0; v < NVAR; ++v) variables[i + v * nelr] = old_variables[i + v * nelr] + factor * fluxes[i + v * nelr];
}
