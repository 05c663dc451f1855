// A spring-mass structure (ParaPoly "Structure"): nodes joined by damped
// springs, integrated with semi-implicit Euler. Each time step is two
// launches, with no atomics, so the result does not depend on thread order:
//   spring_forces:   one thread per spring, the force on its first node
//     -> spring_force -> vec_length -> dot3
//                     -> hooke
//                     -> damping -> dot3
//   integrate_nodes: one thread per node, the sum of the forces of its
//   incident springs (a CSR list) and the integration of each axis
//     -> update_node -> gather_force -> incident_force
//                    -> integrate_axis
// spring_force keeps the direction, the relative velocity, the output
// pointer and the spring's constants live across its calls, update_node the
// node's index, pointers and constants across its six calls: callee-saved
// registers (R16 up) saved by the callee.
//
// The helpers play the part of the paper's library module (CARS compiles the
// common device functions as a separate module): `inline` gives them weak
// linkage (.weak in the PTX), so calls to them follow the full ABI (a weak
// function can be replaced at link time; the compiler may not assume which
// registers it leaves alone) and values live across a call sit in
// callee-saved registers (R16 up) that the callee saves and restores.
//
// Compiled with -rdc=true (separate compilation: the calls stay calls):
// rfsim: rdc
// rfsim: link lib/spring_lib
//
// The helpers are a translation unit of their own (lib/spring_lib.cu), which the
// model links with this one (ptx/link.h).

#include "lib/spring_lib.cuh"

// springs: node pairs (a, b) in ends[2s], ends[2s+1]; rest length, stiffness
// and damping per spring. sforce[3s..3s+2] = the force on node a.
extern "C" __global__ void spring_forces(const float* __restrict__ pos, const float* __restrict__ vel,
                                         const int* __restrict__ ends, const float* __restrict__ rest,
                                         const float* __restrict__ stiff, const float* __restrict__ damp,
                                         float* __restrict__ sforce, int nsprings) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= nsprings) return;
  spring_force(pos, vel, ends[2 * s], ends[2 * s + 1], rest[s], stiff[s], damp[s], &sforce[3 * s]);
}

extern "C" __global__ void integrate_nodes(float* __restrict__ pos, float* __restrict__ vel,
                                           const float* __restrict__ inv_mass, const int* __restrict__ inc_off,
                                           const int* __restrict__ inc, const float* __restrict__ sforce, int nnodes,
                                           float gravity, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nnodes) return;
  update_node(pos, vel, inv_mass, inc_off, inc, sforce, i, gravity, dt);
}
