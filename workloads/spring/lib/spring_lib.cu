// The library module of spring (spring.cu has the kernels), compiled as its own
// translation unit as the CARS paper compiles the common device functions (a
// separate module); the model links the two modules (ptx/link.h) as nvlink
// does. nvcc compiles each unit without knowing the other, so the kernels'
// calls into this unit follow the full ABI. The helpers have weak linkage
// (`inline`: .weak in the PTX), as library code another module may replace
// at link time: even within this unit their callers may not assume which
// registers they leave alone, so every call follows the full ABI and values
// live across a call sit in callee-saved registers (R16 up) that the callee
// saves and restores. The functions the kernels call are this unit's strong,
// visible entry points (ENTRY).
// rfsim: rdc

#include "spring_lib.cuh"

#define LIB __device__ __noinline__ inline
#define ENTRY __device__ __noinline__

LIB float dot3(float ax, float ay, float az, float bx, float by, float bz) {
  return ax * bx + ay * by + az * bz;
}

LIB float vec_length(float x, float y, float z) { return sqrtf(dot3(x, y, z, x, y, z)); }

// Hooke's law: positive (pulling the ends together) when stretched.
LIB float hooke(float len, float rest, float k) { return k * (len - rest); }

// Damping along the spring: c times the rate at which the ends separate.
LIB float damping(float dvx, float dvy, float dvz, float nx, float ny, float nz, float c) {
  return c * dot3(dvx, dvy, dvz, nx, ny, nz);
}

// The force on node a of the spring a-b, written to f[0..2]; the force on b
// is its negative. Returns its magnitude along the spring.
ENTRY float spring_force(const float* __restrict__ pos, const float* __restrict__ vel, int a, int b,
                                           float rest, float k, float c, float* __restrict__ f) {
  float dx = pos[3 * b] - pos[3 * a];
  float dy = pos[3 * b + 1] - pos[3 * a + 1];
  float dz = pos[3 * b + 2] - pos[3 * a + 2];
  float dvx = vel[3 * b] - vel[3 * a];
  float dvy = vel[3 * b + 1] - vel[3 * a + 1];
  float dvz = vel[3 * b + 2] - vel[3 * a + 2];
  float len = vec_length(dx, dy, dz);
  float inv = len > 0.0f ? 1.0f / len : 0.0f;
  float nx = dx * inv, ny = dy * inv, nz = dz * inv;
  float mag = hooke(len, rest, k);
  mag += damping(dvx, dvy, dvz, nx, ny, nz, c);
  f[0] = mag * nx;
  f[1] = mag * ny;
  f[2] = mag * nz;
  return mag;
}

// One entry of a node's incidence list: spring s = entry >> 1, whose first
// node it is (entry & 1 == 0: the force as stored) or second (negated).
LIB float incident_force(const float* __restrict__ sforce, int entry, int axis) {
  float f = sforce[3 * (entry >> 1) + axis];
  return (entry & 1) ? -f : f;
}

// The sum over a node's incident springs of their forces along `axis`, in
// list order.
LIB float gather_force(const int* __restrict__ inc_off, const int* __restrict__ inc,
                                           const float* __restrict__ sforce, int node, int axis) {
  float sum = 0.0f;
  int end = inc_off[node + 1];
  for (int e = inc_off[node]; e < end; ++e) sum += incident_force(sforce, inc[e], axis);
  return sum;
}

// Semi-implicit Euler along one axis: the velocity first, then the position
// with the new velocity.
LIB void integrate_axis(float* __restrict__ x, float* __restrict__ v, float f, float inv_mass,
                                            float g, float dt) {
  float nv = *v + dt * (f * inv_mass + g);
  *v = nv;
  *x = *x + dt * nv;
}

ENTRY void update_node(float* __restrict__ pos, float* __restrict__ vel,
                                         const float* __restrict__ inv_mass, const int* __restrict__ inc_off,
                                         const int* __restrict__ inc, const float* __restrict__ sforce, int node,
                                         float gravity, float dt) {
  float im = inv_mass[node];
  if (im == 0.0f) return;  // an anchored node
  float fx = gather_force(inc_off, inc, sforce, node, 0);
  float fy = gather_force(inc_off, inc, sforce, node, 1);
  float fz = gather_force(inc_off, inc, sforce, node, 2);
  integrate_axis(&pos[3 * node], &vel[3 * node], fx, im, 0.0f, dt);
  integrate_axis(&pos[3 * node + 1], &vel[3 * node + 1], fy, im, -gravity, dt);
  integrate_axis(&pos[3 * node + 2], &vel[3 * node + 2], fz, im, 0.0f, dt);
}
