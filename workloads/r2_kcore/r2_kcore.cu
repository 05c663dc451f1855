// GraphBIG-style k-core decomposition (R2D2 suite; Alvarez-Hamelin et al.)
// by repeated peeling on an undirected graph in CSR (vplist: first edge of
// each vertex, eplist: destinations; both directions of every edge stored),
// vertex-centric, one thread per vertex in 1-D blocks of 256:
//   r2_kcore_init     a vertex's remaining degree starts as its degree
//   r2_kcore_kernel   every vertex removed in the last round decrements the
//                     remaining degree of its neighbours still in the graph
//                     (atomicSub)
//   r2_kcore_kernel2  every vertex still in the graph whose remaining degree
//                     is below k is removed (and flagged for the next
//                     r2_kcore_kernel), counted, and clears the stop flag
// The host launches both until a round removes nothing; what is left is the
// k-core. The removed set changes only in r2_kcore_kernel2 and the degrees
// only in r2_kcore_kernel, so the rounds are the same in any thread order.
#include <stdint.h>

extern "C" __global__ void r2_kcore_init(const uint32_t* vertexlist, uint32_t* d_degree, bool* d_rml, bool* d_flag,
                                         uint32_t vertex_cnt) {
  uint64_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid < vertex_cnt) {
    d_degree[tid] = vertexlist[tid + 1] - vertexlist[tid];
    d_rml[tid] = false;
    d_flag[tid] = false;
  }
}

extern "C" __global__ void r2_kcore_kernel(const uint32_t* vertexlist, const uint32_t* edgelist, uint32_t* vplist,
                                           bool* rmlist, bool* flaglist, uint32_t vertex_cnt) {
  uint64_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= vertex_cnt) return;

  uint64_t vid = tid;
  if (flaglist[vid]) {
    uint32_t start = vertexlist[vid];
    uint32_t end = vertexlist[vid + 1];
    for (uint32_t i = start; i < end; i++) {
      uint32_t dest = edgelist[i];
      if (rmlist[dest] == false) atomicSub(&(vplist[dest]), 1u);
    }
    flaglist[vid] = false;
  }
}

extern "C" __global__ void r2_kcore_kernel2(uint32_t* vplist, bool* rmlist, bool* flaglist, uint32_t vertex_cnt,
                                            uint32_t kcore, uint32_t* rm_cnt, bool* d_over) {
  uint64_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= vertex_cnt) return;

  uint64_t vid = tid;
  if (rmlist[vid] == false) {
    if (vplist[vid] < kcore) {
      rmlist[vid] = true;
      flaglist[vid] = true;
      atomicAdd(rm_cnt, 1u);
      *d_over = false;
    }
  }
}
