// Nearest-neighbour search through a vantage-point tree, modelled on the
// search_kernel of the FSM tree-traversal suite that the RegDem paper's vp
// comes from (Table 1: 256 threads per block, 2.03 KB of static shared
// memory, 7-dimensional points, 34 registers from nvcc 6.5 for sm_52, target
// 32). Each thread owns one query point and keeps its nearest reference
// point. The warp walks the tree in lockstep, as FSM's lockstep traversal
// does: one explicit stack per warp in shared memory (8 warps x 32 entries
// of a node and the mask of the lanes that need it: 2048 B); each lane
// visits a popped node only if its bit is set, and a child is pushed with
// the ballot of the lanes whose current nearest distance does not rule it
// out, the side most lanes fall in visited first.
//
// The tree is built on the host (vp_search_host.cpp) and passed as an array
// of nodes, 12 words each: the vantage point's 7 coordinates, the radii
// r_in (the farthest point of the inside subtree from it) and r_out (the
// nearest point of the outside subtree), the two children and the vantage
// point's index. A lane at distance d from the vantage point needs the
// inside subtree while d - r_in <= tau and the outside one while
// r_out - d <= tau (tau: its nearest distance so far, plus a slack that
// covers float rounding), so pruning never loses the exact nearest point
// (smallest squared distance, then smallest index), whatever the order.
//
// Differs from FSM's kernel: the split is by rank (half the points inside)
// with two radii instead of one median radius, so that the tree is balanced
// whatever the ties; a node is 12 words read as three 16-byte loads; the
// best neighbour is one point, not a list. Our back end needs 35 registers
// (ptxas 13 for sm_75: 36; the paper's nvcc 6.5: 34), above 32, where
// registers limit the occupancy on the GTX Titan X (6 blocks of 256 threads
// per SM, 8 at 32 registers).
#define BLOCK 256
#define DIMS 7
#define DEPTH 32
#define SLACK 1.0e-3f

extern "C" __global__ void __launch_bounds__(BLOCK)
vp_search(const float4* nodes, const float* q, int n, int* nearest, float* dist_sq) {
  __shared__ int2 stack[BLOCK / 32][DEPTH];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  float p[DIMS];
#pragma unroll
  for (int d = 0; d < DIMS; ++d) p[d] = i < n ? q[d * n + i] : 0.0f;
  float best = 3.0e38f, tau = 3.0e38f;
  int best_j = -1;
  int sp = 0;
  const unsigned all = __ballot_sync(0xffffffffu, i < n);
  if (all != 0) {
    if (lane == 0) stack[warp][0] = make_int2(0, int(all));
    sp = 1;
  }
  __syncwarp();
  while (sp > 0) {
    --sp;
    const int2 top = stack[warp][sp];
    const int node = top.x;
    const bool mine = (unsigned(top.y) >> lane) & 1u;
    const float4 a = nodes[3 * node], b = nodes[3 * node + 1];
    const int4 c = reinterpret_cast<const int4*>(nodes)[3 * node + 2];
    // c: r_out (as bits), inside child, outside child, the point's index.
    bool in = false, out = false, near_in = false;
    if (mine) {
      const float t0 = p[0] - a.x, t1 = p[1] - a.y, t2 = p[2] - a.z, t3 = p[3] - a.w;
      const float t4 = p[4] - b.x, t5 = p[5] - b.y, t6 = p[6] - b.z;
      const float s = t0 * t0 + t1 * t1 + t2 * t2 + t3 * t3 + t4 * t4 + t5 * t5 + t6 * t6;
      if (s < best || (s == best && c.w < best_j)) {
        best = s, best_j = c.w;
        tau = sqrtf(s) + SLACK;
      }
      const float d = sqrtf(s), r_in = b.w, r_out = __int_as_float(c.x);
      in = c.y >= 0 && d - r_in <= tau;
      out = c.z >= 0 && r_out - d <= tau;
      near_in = d - r_in <= r_out - d;
    }
    const unsigned m_in = __ballot_sync(0xffffffffu, in), m_out = __ballot_sync(0xffffffffu, out);
    const unsigned m_near = __ballot_sync(0xffffffffu, near_in);
    // The side most of the lanes are nearer to goes on top, to be visited first.
    const bool in_first = 2 * __popc(m_near) >= __popc(unsigned(top.y));
    __syncwarp();
    const int2 e_in = make_int2(c.y, int(m_in)), e_out = make_int2(c.z, int(m_out));
    const int2 lower = in_first ? e_out : e_in, upper = in_first ? e_in : e_out;
    if (lower.y != 0) {
      if (lane == 0) stack[warp][sp] = lower;
      ++sp;
    }
    if (upper.y != 0) {
      if (lane == 0) stack[warp][sp] = upper;
      ++sp;
    }
    __syncwarp();
  }
  if (i < n) {
    nearest[i] = best_j;
    dist_sq[i] = best;
  }
}
