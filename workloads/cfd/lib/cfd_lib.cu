// The library module of cfd (cfd.cu has the kernels): the flux, pressure,
// velocity and speed-of-sound helpers and the far-field tables they read,
// compiled as their own translation unit as the CARS paper compiles the
// common device functions (a separate module); the model links the two
// modules (ptx/link.h) as nvlink does. nvcc compiles each unit without
// knowing the other, so the kernels' calls into this unit follow the full
// ABI. The helpers have weak linkage (`inline`: .weak in the PTX), as library
// code another module may replace at link time: even within this unit their
// callers may not assume which registers they leave alone, so every call
// follows the full ABI and values live across a call sit in callee-saved
// registers (R16 up) that the callee saves and restores. The functions the
// kernels call are this unit's strong, visible entry points (ENTRY):
// cell_flux, and compute_velocity, compute_speed_sqd, compute_pressure and
// compute_speed_of_sound, which cfd_step_factor calls too. Being strong, the
// latter four cannot be replaced, so their callers in this unit (the flux
// helpers) may rely on the registers they leave alone, as ptxas does.
// rfsim: rdc

#include "cfd_lib.cuh"

#define LIB __device__ __noinline__ inline
#define ENTRY __device__ __noinline__

// Far-field state (density, momentum x/y/z, density energy) and its flux
// contribution (momentum_x xyz, momentum_y xyz, momentum_z xyz, density
// energy xyz), set by the host.
__constant__ float ff_variable[NVAR];
__constant__ float ff_flux_contribution[12];

struct FluxContribution {
  float3 momentum_x, momentum_y, momentum_z, density_energy;
};

ENTRY float3 compute_velocity(float density, float3 momentum) {
  return make_float3(momentum.x / density, momentum.y / density, momentum.z / density);
}

ENTRY float compute_speed_sqd(float3 velocity) {
  return velocity.x * velocity.x + velocity.y * velocity.y + velocity.z * velocity.z;
}

ENTRY float compute_pressure(float density, float density_energy, float3 velocity) {
  float speed_sqd = compute_speed_sqd(velocity);
  return (GAMMA - 1.0f) * (density_energy - 0.5f * density * speed_sqd);
}

ENTRY float compute_speed_of_sound(float density, float pressure) { return sqrtf(GAMMA * pressure / density); }

// Rodinia passes the density too, unused; nvcc then declares that argument
// at every call but never writes it, which rfsim's back end does not accept
// (its allocation check fails), so it is dropped here.
LIB FluxContribution compute_flux_contribution(float3 momentum, float density_energy, float pressure, float3 velocity) {
  FluxContribution fc;
  fc.momentum_x.x = velocity.x * momentum.x + pressure;
  fc.momentum_x.y = velocity.x * momentum.y;
  fc.momentum_x.z = velocity.x * momentum.z;
  fc.momentum_y.x = fc.momentum_x.y;
  fc.momentum_y.y = velocity.y * momentum.y + pressure;
  fc.momentum_y.z = velocity.y * momentum.z;
  fc.momentum_z.x = fc.momentum_x.z;
  fc.momentum_z.y = fc.momentum_y.z;
  fc.momentum_z.z = velocity.z * momentum.z + pressure;
  float de_p = density_energy + pressure;
  fc.density_energy.x = velocity.x * de_p;
  fc.density_energy.y = velocity.y * de_p;
  fc.density_energy.z = velocity.z * de_p;
  return fc;
}

__device__ __forceinline__ float3 face_normal(const float* __restrict__ normals, int i, int j, int nelr) {
  return make_float3(normals[i + (j + 0 * NNB) * nelr], normals[i + (j + 1 * NNB) * nelr],
                     normals[i + (j + 2 * NNB) * nelr]);
}

struct CellVars {
  float density;
  float3 momentum;
  float density_energy;
};

LIB CellVars load_cell(const float* __restrict__ variables, int i, int nelr) {
  CellVars c;
  c.density = variables[i + VAR_DENSITY * nelr];
  c.momentum = make_float3(variables[i + (VAR_MOMENTUM + 0) * nelr], variables[i + (VAR_MOMENTUM + 1) * nelr],
                           variables[i + (VAR_MOMENTUM + 2) * nelr]);
  c.density_energy = variables[i + VAR_DENSITY_ENERGY * nelr];
  return c;
}

// What neighbour nb adds through a face: its half of the face-centred flux
// minus factor times its variables (artificial viscosity), and the factor.
struct FaceFlux {
  float density, momentum_x, momentum_y, momentum_z, density_energy, factor;
};

// Depth 2 (its helpers reach depth 4 through compute_pressure).
LIB FaceFlux neighbor_flux(const float* __restrict__ variables, int nb, int nelr, float3 normal, float speed_sound_i) {
  CellVars c = load_cell(variables, nb, nelr);
  float3 velocity = compute_velocity(c.density, c.momentum);
  float speed_sqd = compute_speed_sqd(velocity);
  float pressure = compute_pressure(c.density, c.density_energy, velocity);
  float speed_sound = sqrtf(speed_sqd) + compute_speed_of_sound(c.density, pressure);
  FluxContribution fc = compute_flux_contribution(c.momentum, c.density_energy, pressure, velocity);

  float normal_len = sqrtf(normal.x * normal.x + normal.y * normal.y + normal.z * normal.z);
  float factor = -normal_len * SMOOTHING_COEFFICIENT * 0.5f * (speed_sound_i + speed_sound);
  float3 h = make_float3(0.5f * normal.x, 0.5f * normal.y, 0.5f * normal.z);
  FaceFlux r;
  r.density = h.x * c.momentum.x + h.y * c.momentum.y + h.z * c.momentum.z - factor * c.density;
  r.momentum_x = h.x * fc.momentum_x.x + h.y * fc.momentum_x.y + h.z * fc.momentum_x.z - factor * c.momentum.x;
  r.momentum_y = h.x * fc.momentum_y.x + h.y * fc.momentum_y.y + h.z * fc.momentum_y.z - factor * c.momentum.y;
  r.momentum_z = h.x * fc.momentum_z.x + h.y * fc.momentum_z.y + h.z * fc.momentum_z.z - factor * c.momentum.z;
  r.density_energy =
      h.x * fc.density_energy.x + h.y * fc.density_energy.y + h.z * fc.density_energy.z - factor * c.density_energy;
  r.factor = factor;
  return r;
}

// The fluxes through the 4 faces of cell i (depth 1).
ENTRY Flux cell_flux(const int* __restrict__ elements_surrounding, const float* __restrict__ normals,
                   const float* __restrict__ variables, int i, int nelr) {
  CellVars c = load_cell(variables, i, nelr);
  float3 velocity = compute_velocity(c.density, c.momentum);
  float speed_sqd = compute_speed_sqd(velocity);
  float pressure = compute_pressure(c.density, c.density_energy, velocity);
  float speed_sound = sqrtf(speed_sqd) + compute_speed_of_sound(c.density, pressure);

  Flux f = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
  float factor_sum = 0.0f;                                 // viscosity factors of the inner faces
  float3 half_normal_sum = make_float3(0.0f, 0.0f, 0.0f);  // faces that take the cell's own flux half
#pragma unroll 1  // one face per iteration: unrolled, the code is four times as long
  for (int j = 0; j < NNB; ++j) {
    int nb = elements_surrounding[i + j * nelr];
    float3 normal = face_normal(normals, i, j, nelr);
    if (nb >= 0) {
      FaceFlux r = neighbor_flux(variables, nb, nelr, normal, speed_sound);
      f.density += r.density;
      f.momentum_x += r.momentum_x;
      f.momentum_y += r.momentum_y;
      f.momentum_z += r.momentum_z;
      f.density_energy += r.density_energy;
      factor_sum += r.factor;
      half_normal_sum = make_float3(half_normal_sum.x + 0.5f * normal.x, half_normal_sum.y + 0.5f * normal.y,
                                    half_normal_sum.z + 0.5f * normal.z);
    } else if (nb == -1) {  // wall: pressure only
      f.momentum_x += normal.x * pressure;
      f.momentum_y += normal.y * pressure;
      f.momentum_z += normal.z * pressure;
    } else if (nb == -2) {  // far field
      float3 h = make_float3(0.5f * normal.x, 0.5f * normal.y, 0.5f * normal.z);
      f.density += h.x * ff_variable[VAR_MOMENTUM + 0] + h.y * ff_variable[VAR_MOMENTUM + 1] +
                   h.z * ff_variable[VAR_MOMENTUM + 2];
      f.momentum_x += h.x * ff_flux_contribution[0] + h.y * ff_flux_contribution[1] + h.z * ff_flux_contribution[2];
      f.momentum_y += h.x * ff_flux_contribution[3] + h.y * ff_flux_contribution[4] + h.z * ff_flux_contribution[5];
      f.momentum_z += h.x * ff_flux_contribution[6] + h.y * ff_flux_contribution[7] + h.z * ff_flux_contribution[8];
      f.density_energy +=
          h.x * ff_flux_contribution[9] + h.y * ff_flux_contribution[10] + h.z * ff_flux_contribution[11];
      half_normal_sum = make_float3(half_normal_sum.x + h.x, half_normal_sum.y + h.y, half_normal_sum.z + h.z);
    }
  }

  // The cell's own terms, once for all its faces: its half of the
  // face-centred fluxes and its side of the viscosity (its variables read
  // and its velocity computed again rather than kept across the loop).
  c = load_cell(variables, i, nelr);
  velocity = compute_velocity(c.density, c.momentum);
  FluxContribution fc = compute_flux_contribution(c.momentum, c.density_energy, pressure, velocity);
  float3 s = half_normal_sum;
  f.density += s.x * c.momentum.x + s.y * c.momentum.y + s.z * c.momentum.z + factor_sum * c.density;
  f.momentum_x += s.x * fc.momentum_x.x + s.y * fc.momentum_x.y + s.z * fc.momentum_x.z + factor_sum * c.momentum.x;
  f.momentum_y += s.x * fc.momentum_y.x + s.y * fc.momentum_y.y + s.z * fc.momentum_y.z + factor_sum * c.momentum.y;
  f.momentum_z += s.x * fc.momentum_z.x + s.y * fc.momentum_z.y + s.z * fc.momentum_z.z + factor_sum * c.momentum.z;
  f.density_energy += s.x * fc.density_energy.x + s.y * fc.density_energy.y + s.z * fc.density_energy.z +
                      factor_sum * c.density_energy;
  return f;
}
