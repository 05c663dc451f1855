// B+tree point queries (LTRF suite, register-insensitive; after Rodinia's
// b+tree findK): many independent queries walk a read-only B+tree of
// fan-out 32 from the root to a leaf and return the record stored under the
// key, or -1. One warp per query: at every node lane i reads key slot i,
// the warp's ballot of `key <= query` gives the child to follow (an inner
// node's slot i holds the smallest key below child i, slot 0 the lowest
// possible key, unused slots the highest), and at the leaf the ballot of
// `key == query` gives the record. Few registers; the node reads are one
// 128-byte line per level per warp.
#define FANOUT 32

// keys, child: FANOUT words per node (node n at n * FANOUT); values: the
// records of the leaves' slots (same indexing). The root is node `root`,
// with `height` inner levels above the leaves.
extern "C" __global__ void __launch_bounds__(256) lt_btree(const int* __restrict__ keys, const int* __restrict__ child,
                                                           const int* __restrict__ values, int root, int height,
                                                           const int* __restrict__ queries, int nqueries,
                                                           int* __restrict__ result) {
  const int lane = threadIdx.x & (FANOUT - 1);
  const int q = (blockIdx.x * blockDim.x + threadIdx.x) / FANOUT;  // the same for the whole warp
  if (q >= nqueries) return;
  const int key = queries[q];
  int node = root;
  for (int level = 0; level < height; ++level) {
    const unsigned below = __ballot_sync(0xffffffffu, keys[node * FANOUT + lane] <= key);
    node = child[node * FANOUT + (31 - __clz(below))];
  }
  const unsigned hit = __ballot_sync(0xffffffffu, keys[node * FANOUT + lane] == key);
  if (lane == 0) result[q] = hit ? values[node * FANOUT + __ffs(hit) - 1] : -1;
}
