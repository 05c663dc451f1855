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

#define LIB __device__ __noinline__ inline

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
LIB int relax_vertex(const int* __restrict__ row, const int* __restrict__ adj, const unsigned* __restrict__ packed_w,
                     int* dist, int* __restrict__ next, int v) {
  int dv = *(volatile int*)&dist[v];
  int end = row[v + 1];
  int lowered = 0;
  for (int e = row[v]; e < end; ++e) lowered += relax_edge(adj, packed_w, dist, next, e, dv);
  return lowered;
}

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
