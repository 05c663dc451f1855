// GraphBIG-style connected components (R2D2 suite) by label propagation on
// an undirected graph in CSR (vplist: first edge of each vertex, eplist:
// destinations; both directions of every edge stored), vertex-centric, one
// thread per vertex in 1-D blocks of 256:
//   r2_ccomp_init    every vertex starts with its own id as its label
//   r2_ccomp_kernel  a vertex takes the smallest label among its own and its
//                    neighbours' and clears the stop flag when it changed
// The host launches r2_ccomp_kernel until a launch changes nothing. Labels
// are updated in place: a neighbour may read the old or the new label of a
// vertex, both of them labels of the same component, and labels only
// decrease, so the fixpoint is the same in any order: every vertex ends
// with the smallest id of its component.
#include <stdint.h>

extern "C" __global__ void r2_ccomp_init(uint32_t* labellist, uint32_t vertex_cnt) {
  uint64_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= vertex_cnt) return;
  labellist[tid] = (uint32_t)tid;
}

extern "C" __global__ void r2_ccomp_kernel(const uint32_t* vplist, const uint32_t* eplist, uint32_t* labellist,
                                           uint32_t vertex_cnt, bool* d_over) {
  uint64_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= vertex_cnt) return;

  uint32_t start = vplist[tid];
  uint32_t end = vplist[tid + 1];
  uint32_t label = labellist[tid];
  uint32_t best = label;
  for (uint32_t i = start; i < end; i++) {
    uint32_t dest_label = labellist[eplist[i]];
    if (dest_label < best) best = dest_label;
  }
  if (best < label) {
    labellist[tid] = best;
    *d_over = false;
  }
}
