// Minimum spanning forest by Boruvka's algorithm on an undirected weighted
// graph in CSR form (LoneStar MST, CARS Table I). Every round the host runs
// three kernels until no component merges any more:
//   mst_find_min  every vertex finds the lightest edge leaving its component
//                 and lowers its component's slot with atomicMin;
//   mst_merge     every component with a slot unites itself with the other
//                 end of that edge (lock-free union-find, atomicCAS);
//   mst_relabel   every vertex points straight at its root (full compression).
// Edges are ordered by (weight, edge id), a strict total order, so the
// chosen edges never form a cycle and the forest is the unique one Kruskal's
// algorithm finds with the same order. The union links the larger root under
// the smaller one, so each component's root is its smallest vertex.
//
// The helpers play the part of the paper's library module: `inline` gives
// them weak linkage (.weak in the PTX), so calls to them follow the full ABI
// (a weak function can be replaced at link time; the compiler may not assume
// which registers it leaves alone), and a caller keeps its live values in
// callee-saved registers (R16 up) that each callee saves and restores.
// Separate compilation keeps them real calls:
// rfsim: rdc
// rfsim: link lib/mst_lib
//
// The helpers are a translation unit of their own (lib/mst_lib.cu), which the
// model links with this one (ptx/link.h).

#include "lib/mst_lib.cuh"

extern "C" __global__ void mst_find_min(const int* __restrict__ row, const int* __restrict__ adj,
                                        const unsigned* __restrict__ adj_w, const unsigned* __restrict__ adj_id,
                                        const int* parent, unsigned* __restrict__ cheapest, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  int cv = find_root(parent, v);
  unsigned best = vertex_cheapest(row, adj, adj_w, adj_id, parent, v, cv);
  if (best != NO_EDGE) atomicMin(&cheapest[cv], best);
}

// totals[0]: merges this round, totals[1]: forest weight so far.
extern "C" __global__ void mst_merge(int* parent, const unsigned* __restrict__ cheapest, const int* __restrict__ eu,
                                     const int* __restrict__ ev, unsigned* __restrict__ in_mst,
                                     unsigned* __restrict__ totals, int n) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= n) return;
  unsigned key = cheapest[c];
  if (key == NO_EDGE) return;
  if (merge_component(parent, eu, ev, in_mst, totals, key)) atomicAdd(&totals[0], 1u);
}

extern "C" __global__ void mst_relabel(int* parent, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  parent[v] = find_root(parent, v);
}
