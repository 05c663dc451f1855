// GraphBIG-style single-source shortest paths (R2D2 suite; topology-driven,
// after Hong et al.): Bellman-Ford relaxation over a directed graph in CSR
// (vertexlist: first edge of each vertex, edgelist: destinations, eproplist:
// integer weights), vertex-centric, one thread per vertex in 1-D blocks of
// 256:
//   r2_sssp_kernel   every vertex whose distance changed in the last round
//                    (mask) offers distance + weight to each out-neighbour
//                    (atomicMin into the update array)
//   r2_sssp_kernel2  a vertex whose update beats its distance takes it, is
//                    masked for the next round and clears the stop flag;
//                    otherwise the update is reset to the distance
// The host launches both until a round changes nothing. atomicMin makes the
// minima independent of the thread order.
#include <stdint.h>

extern "C" __global__ void r2_sssp_kernel(const uint32_t* vertexlist, const uint32_t* edgelist,
                                          const uint32_t* eproplist, const uint32_t* vplist, uint32_t* update,
                                          bool* mask, uint32_t vertex_cnt) {
  uint64_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= vertex_cnt) return;
  if (mask[tid]) {
    uint32_t start = vertexlist[tid];
    uint32_t end = vertexlist[tid + 1];
    uint32_t cost = vplist[tid];
    for (uint32_t i = start; i < end; i++) {
      uint32_t vid = edgelist[i];
      atomicMin(&(update[vid]), cost + eproplist[i]);
    }
    mask[tid] = false;
  }
}

extern "C" __global__ void r2_sssp_kernel2(uint32_t* vplist, uint32_t* update, bool* mask, uint32_t vertex_cnt,
                                           bool* changed) {
  uint64_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= vertex_cnt) return;

  if (vplist[tid] > update[tid]) {
    vplist[tid] = update[tid];
    mask[tid] = true;
    *changed = true;
  } else {
    update[tid] = vplist[tid];
  }
}
