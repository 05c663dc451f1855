// One level of breadth-first search on a CSR graph, one thread per vertex
// (Harish and Narayanan, HiPC 2007; the Rodinia bfs structure). A vertex in
// the current frontier visits its out-edges and puts every unvisited
// neighbour in the next frontier at level + 1. Several threads may claim the
// same neighbour in one level; they all write the same values, so the race
// is benign. The host swaps the frontiers and launches again until a level
// changes nothing.
extern "C" __global__ void bfs_level(const int* __restrict__ row_offsets, const int* __restrict__ columns,
                                     const unsigned char* __restrict__ frontier, unsigned char* __restrict__ next,
                                     int* __restrict__ levels, int level, int num_vertices, int* __restrict__ changed) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= num_vertices || !frontier[v]) return;

  int begin = row_offsets[v];
  int end = row_offsets[v + 1];
  for (int e = begin; e < end; ++e) {
    int u = columns[e];
    if (levels[u] < 0) {
      levels[u] = level + 1;
      next[u] = 1;
      *changed = 1;
    }
  }
}
