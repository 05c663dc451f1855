// What cfd's kernels need from its library module (lib/cfd_lib.cu): the
// shared constants, the flux type and the functions they call. The
// far-field tables (__constant__ ff_variable, ff_flux_contribution) are the
// library's; the host fills them through their symbols.
#pragma once

#define GAMMA 1.4f
#define NNB 4
#define NVAR 5
#define VAR_DENSITY 0
#define VAR_MOMENTUM 1
#define VAR_DENSITY_ENERGY 4
#define SMOOTHING_COEFFICIENT 0.2f

struct Flux {
  float density, momentum_x, momentum_y, momentum_z, density_energy;
};

__device__ float3 compute_velocity(float density, float3 momentum);
__device__ float compute_speed_sqd(float3 velocity);
__device__ float compute_pressure(float density, float density_energy, float3 velocity);
__device__ float compute_speed_of_sound(float density, float pressure);
// The fluxes through the 4 faces of cell i.
__device__ Flux cell_flux(const int* __restrict__ elements_surrounding, const float* __restrict__ normals,
                          const float* __restrict__ variables, int i, int nelr);
