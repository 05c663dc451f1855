// The library module of sssp (sssp.cu has the kernels), compiled as its own
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

#include "sssp_lib.cuh"

#define LIB __device__ __noinline__ inline
#define ENTRY __device__ __noinline__

// Weights are stored in 16 bits per edge, two per word (a packed layout, so
// reading one is a small computation).
LIB int edge_weight(const unsigned* __restrict__ packed_w, int e) {
  unsigned word = packed_w[e >> 1];
  return (int)((e & 1) ? (word >> 16) : (word & 0xffffu));
}

// Lowers dist[u] to nd; true if nd was the smaller.
LIB bool try_lower(int* dist, int u, int nd) { return nd < atomicMin(&dist[u], nd); }

LIB void mark_frontier(int* __restrict__ next, int u) { next[u] = 1; }

// Relaxes edge e (to adj[e]) from a vertex at distance dv: 1 if it lowered
// its target's distance, else 0.
LIB int relax_edge(const int* __restrict__ adj, const unsigned* __restrict__ packed_w, int* dist,
                   int* __restrict__ next, int e, int dv) {
  int u = adj[e];
  int nd = dv + edge_weight(packed_w, e);
  if (nd >= *(volatile int*)&dist[u]) return 0;  // cheap test before the atomic
  if (!try_lower(dist, u, nd)) return 0;
  mark_frontier(next, u);
  return 1;
}

// Relaxes every out-edge of v: the number of distances it lowered.
ENTRY int relax_vertex(const int* __restrict__ row, const int* __restrict__ adj, const unsigned* __restrict__ packed_w,
                     int* dist, int* __restrict__ next, int v) {
  int dv = *(volatile int*)&dist[v];
  int end = row[v + 1];
  int lowered = 0;
  for (int e = row[v]; e < end; ++e) lowered += relax_edge(adj, packed_w, dist, next, e, dv);
  return lowered;
}
