// Breadth-first search, one level per pair of launches (LTRF suite,
// register-insensitive; after Rodinia's bfs, Harish and Narayanan's
// two-kernel scheme). One thread per vertex. lt_bfs_expand: a vertex in the
// frontier (mask) leaves it and gives every unvisited neighbour the cost
// cost + 1 and a place in the next frontier (updating); several vertices
// may reach the same neighbour in one level, all writing the same cost.
// lt_bfs_update: every vertex of the next frontier becomes visited and part
// of the frontier, and the flag `more` tells the host to launch another
// level.
extern "C" __global__ void __launch_bounds__(256) lt_bfs_expand(const int* __restrict__ row_start,
                                                                const int* __restrict__ edges,
                                                                unsigned char* __restrict__ mask,
                                                                unsigned char* __restrict__ updating,
                                                                const unsigned char* __restrict__ visited,
                                                                int* __restrict__ cost, int n) {
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n || !mask[v]) return;
  mask[v] = 0;
  const int next = cost[v] + 1;
  for (int e = row_start[v]; e < row_start[v + 1]; ++e) {
    const int u = edges[e];
    if (!visited[u]) {
      cost[u] = next;
      updating[u] = 1;
    }
  }
}

extern "C" __global__ void __launch_bounds__(256) lt_bfs_update(unsigned char* __restrict__ mask,
                                                                unsigned char* __restrict__ updating,
                                                                unsigned char* __restrict__ visited,
                                                                int* __restrict__ more, int n) {
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n || !updating[v]) return;
  mask[v] = 1;
  visited[v] = 1;
  updating[v] = 0;
  *more = 1;
}
