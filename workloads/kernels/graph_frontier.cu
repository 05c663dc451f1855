// Graph traversal over a CSR graph with a frontier, as in the GPU BFS and
// shortest-path benchmarks:
//   bfs_expand   level expansion: every vertex in the frontier mask clears
//                its flag and visits its edges; unvisited neighbours get the
//                next cost and are flagged in the updating mask;
//   bfs_commit   the second half of the level: flagged vertices join the
//                frontier and the visited set, and the host's "not done" flag
//                is raised;
//   sssp_relax   Bellman-Ford style relaxation over a frontier: for each
//                frontier vertex, every outgoing edge tries atomicMin on the
//                neighbour's distance; a successful improvement puts the
//                neighbour in the next frontier.

extern "C" __global__ void bfs_expand(const int* __restrict__ row_offsets, const int* __restrict__ columns,
                                      bool* __restrict__ frontier, bool* __restrict__ updating,
                                      const bool* __restrict__ visited, int* __restrict__ cost, int nvertices) {
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= nvertices || !frontier[v]) return;
  frontier[v] = false;
  const int next_cost = cost[v] + 1;
  const int end = row_offsets[v + 1];
  for (int e = row_offsets[v]; e < end; ++e) {
    const int u = columns[e];
    if (!visited[u]) {
      cost[u] = next_cost;
      updating[u] = true;
    }
  }
}

extern "C" __global__ void bfs_commit(bool* __restrict__ frontier, bool* __restrict__ updating,
                                      bool* __restrict__ visited, bool* __restrict__ not_done, int nvertices) {
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= nvertices || !updating[v]) return;
  frontier[v] = true;
  visited[v] = true;
  *not_done = true;
  updating[v] = false;
}

extern "C" __global__ void sssp_relax(const int* __restrict__ row_offsets, const int* __restrict__ columns,
                                      const unsigned* __restrict__ weights, const int* __restrict__ frontier,
                                      int frontier_size, unsigned* __restrict__ dist, int* __restrict__ next_frontier,
                                      int* __restrict__ next_size, int* __restrict__ in_next) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= frontier_size) return;
  const int v = frontier[t];
  const unsigned dv = dist[v];
  const int begin = row_offsets[v], end = row_offsets[v + 1];
  for (int e = begin; e < end; ++e) {
    const int u = columns[e];
    const unsigned nd = dv + weights[e];
    const unsigned old = atomicMin(dist + u, nd);
    // An improvement enqueues the neighbour once per level.
    if (nd < old && atomicExch(in_next + u, 1) == 0) {
      const int slot = atomicAdd(next_size, 1);
      next_frontier[slot] = u;
    }
  }
}
