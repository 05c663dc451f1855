// Single-source shortest paths by frontier (worklist) Bellman-Ford on a
// directed graph with integer weights in CSR form (LoneStar SSSP, CARS
// Table I). One launch per round: every vertex in the current frontier
// relaxes its out-edges; a vertex whose distance an atomicMin lowered joins
// the next frontier. The host swaps the frontiers and runs rounds until one
// lowers nothing. The distances are then the exact shortest ones whatever
// order the relaxations ran in.
//
// Call chain (depth 3): sssp_relax -> relax_vertex -> relax_edge ->
// edge_weight / try_lower / mark_frontier. The helpers stand for the paper's
// library module: `inline` gives them weak linkage (.weak), so every call
// follows the full ABI and values live across a call sit in callee-saved
// registers (R16 up) that the callee saves and restores. Separate
// compilation keeps them real calls:
// rfsim: rdc
// rfsim: link lib/sssp_lib
//
// The helpers are a translation unit of their own (lib/sssp_lib.cu), which the
// model links with this one (ptx/link.h).

#include "lib/sssp_lib.cuh"

// cur/next: frontier flags (1 = in). *lowered counts the distances lowered.
extern "C" __global__ void sssp_relax(const int* __restrict__ row, const int* __restrict__ adj,
                                      const unsigned* __restrict__ packed_w, int* dist,
                                      const int* __restrict__ cur, int* __restrict__ next,
                                      unsigned* __restrict__ lowered, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n || !cur[v]) return;
  int k = relax_vertex(row, adj, packed_w, dist, next, v);
  if (k) atomicAdd(lowered, (unsigned)k);
}
