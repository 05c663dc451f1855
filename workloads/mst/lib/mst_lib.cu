// The library module of mst (mst.cu has the kernels), compiled as its own
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

#include "mst_lib.cuh"

#define LIB __device__ __noinline__ inline
#define ENTRY __device__ __noinline__

// Depth 4 (the innermost call of every chain): one step up the tree. Volatile
// loads: other threads of mst_merge change the parents of roots meanwhile.
LIB int parent_of(const volatile int* parent, int x) { return parent[x]; }

// Depth 3: the root of x's tree (no compression; mst_relabel does that).
ENTRY int find_root(const volatile int* parent, int x) {
  int p = parent_of(parent, x);
  while (p != x) {
    x = p;
    p = parent_of(parent, x);
  }
  return x;
}

// Strict total order on edges: lighter weight first, then the smaller id.
LIB bool lighter_edge(unsigned wa, unsigned ida, unsigned wb, unsigned idb) {
  return wa < wb || (wa == wb && ida < idb);
}

// The 32-bit key atomicMin orders like lighter_edge: weight above the id.
LIB unsigned edge_key(unsigned w, unsigned id) { return (w << ID_BITS) | id; }

// Edge slot e of a vertex in component cv: the lighter of `best` (a key) and
// e, when e leaves the component.
LIB unsigned consider_edge(const int* __restrict__ adj, const unsigned* __restrict__ adj_w,
                           const unsigned* __restrict__ adj_id, const int* parent, int e, int cv,
                           unsigned best) {
  int u = adj[e];
  unsigned w = adj_w[e], id = adj_id[e];
  int cu = find_root(parent, u);
  if (cu == cv) return best;
  if (best == NO_EDGE || lighter_edge(w, id, best >> ID_BITS, best & ID_MASK)) return edge_key(w, id);
  return best;
}

// Depth 1: the lightest edge from v out of its component cv, NO_EDGE if none.
ENTRY unsigned vertex_cheapest(const int* __restrict__ row, const int* __restrict__ adj,
                             const unsigned* __restrict__ adj_w, const unsigned* __restrict__ adj_id,
                             const int* parent, int v, int cv) {
  unsigned best = NO_EDGE;
  int end = row[v + 1];
  for (int e = row[v]; e < end; ++e) best = consider_edge(adj, adj_w, adj_id, parent, e, cv, best);
  return best;
}

// Hooks root hi under root lo, unless another thread moved hi first.
LIB bool link_roots(int* parent, int hi, int lo) { return atomicCAS(&parent[hi], hi, lo) == hi; }

// Lock-free union: true when this call joined two different trees.
LIB bool unite(int* parent, int a, int b) {
  for (;;) {
    a = find_root(parent, a);
    b = find_root(parent, b);
    if (a == b) return false;
    int lo = a < b ? a : b, hi = a < b ? b : a;
    if (link_roots(parent, hi, lo)) return true;
  }
}

// Depth 1 of mst_merge: adds edge `key` to the forest when it joins two trees
// (both ends of a pair of components may pick the same edge; one wins).
ENTRY unsigned merge_component(int* parent, const int* __restrict__ eu, const int* __restrict__ ev,
                             unsigned* __restrict__ in_mst, unsigned* __restrict__ totals, unsigned key) {
  unsigned id = key & ID_MASK;
  unsigned w = key >> ID_BITS;
  if (!unite(parent, eu[id], ev[id])) return 0;
  in_mst[id] = 1;
  atomicAdd(&totals[1], w);
  return 1;
}
