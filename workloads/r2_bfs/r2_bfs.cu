// Rodinia bfs (R2D2 suite; Harish and Narayanan, HiPC 2007): breadth-first
// search over a graph in compressed rows, one thread per vertex, 1-D blocks
// of 512 threads (Rodinia's MAX_THREADS_PER_BLOCK), two kernels per level:
//   r2_bfs_kernel   every vertex of the frontier (mask) leaves it and gives
//                   its unvisited neighbours its cost + 1, marking them in
//                   the updating mask (several frontier vertices may claim
//                   the same neighbour; they all write the same cost)
//   r2_bfs_kernel2  the updating mask becomes the next frontier, the vertices
//                   in it visited, and the stop flag is cleared
// The host launches both until a level changes nothing. Node is Rodinia's
// (first edge, number of edges) pair: the rows of the CSR graph.
#define MAX_THREADS_PER_BLOCK 512

struct Node {
  int starting;
  int no_of_edges;
};

extern "C" __global__ void r2_bfs_kernel(Node* g_graph_nodes, int* g_graph_edges, bool* g_graph_mask,
                                         bool* g_updating_graph_mask, bool* g_graph_visited, int* g_cost,
                                         int no_of_nodes) {
  int tid = blockIdx.x * MAX_THREADS_PER_BLOCK + threadIdx.x;
  if (tid < no_of_nodes && g_graph_mask[tid]) {
    g_graph_mask[tid] = false;
    for (int i = g_graph_nodes[tid].starting; i < (g_graph_nodes[tid].no_of_edges + g_graph_nodes[tid].starting); i++) {
      int id = g_graph_edges[i];
      if (!g_graph_visited[id]) {
        g_cost[id] = g_cost[tid] + 1;
        g_updating_graph_mask[id] = true;
      }
    }
  }
}

extern "C" __global__ void r2_bfs_kernel2(bool* g_graph_mask, bool* g_updating_graph_mask, bool* g_graph_visited,
                                          bool* g_over, int no_of_nodes) {
  int tid = blockIdx.x * MAX_THREADS_PER_BLOCK + threadIdx.x;
  if (tid < no_of_nodes && g_updating_graph_mask[tid]) {
    g_graph_mask[tid] = true;
    g_graph_visited[tid] = true;
    *g_over = true;
    g_updating_graph_mask[tid] = false;
  }
}
