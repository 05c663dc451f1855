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

#define LIB __device__ __noinline__ inline

#define ID_BITS 22u
#define ID_MASK ((1u << ID_BITS) - 1u)
#define NO_EDGE 0xffffffffu

// Depth 4 (the innermost call of every chain): one step up the tree. Volatile
// loads: other threads of mst_merge change the parents of roots meanwhile.
LIB int parent_of(const volatile int* parent, int x) { return parent[x]; }

// Depth 3: the root of x's tree (no compression; mst_relabel does that).
LIB int find_root(const volatile int* parent, int x) {
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
LIB unsigned vertex_cheapest(const int* __restrict__ row, const int* __restrict__ adj,
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
LIB unsigned merge_component(int* parent, const int* __restrict__ eu, const int* __restrict__ ev,
                             unsigned* __restrict__ in_mst, unsigned* __restrict__ totals, unsigned key) {
  unsigned id = key & ID_MASK;
  unsigned w = key >> ID_BITS;
  if (!unite(parent, eu[id], ev[id])) return 0;
  in_mst[id] = 1;
  atomicAdd(&totals[1], w);
  return 1;
}

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
