// B+tree look-ups on the GPU, one thread per query, as in database-style
// benchmark kernels: the tree is a flat array of nodes, each with a sorted
// key array and child (inner node) or record (leaf) indices; the search
// walks `height` levels and, inside a node, scans its keys.
//   btree_find_key    exact-match look-up: descend to a leaf, return the
//                     record's value or -1;
//   btree_find_range  range query [lo, hi]: two descents advanced together,
//                     one per bound, then the number of records between the
//                     two leaf positions and the first one's index.

#define BT_ORDER 32

struct BtNode {
  int keys[BT_ORDER];       // sorted, num_keys valid
  int child[BT_ORDER + 1];  // inner node: child node index; leaf: record index per key
  int num_keys;
  int is_leaf;
  int leaf_base;  // leaf: global position of its first record in leaf order
  int next_leaf;
};

extern "C" __global__ void btree_find_key(const BtNode* __restrict__ nodes, int height, const int* __restrict__ records,
                                          const int* __restrict__ queries, int nqueries, int* __restrict__ result) {
  const int q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= nqueries) return;
  const int key = queries[q];

  int node = 0;  // the root
  for (int level = 0; level < height; ++level) {
    const BtNode* n = nodes + node;
    const int nk = n->num_keys;
    // First key greater than the search key picks the child.
    int slot = nk;
    for (int k = 0; k < nk; ++k) {
      if (key < n->keys[k]) {
        slot = k;
        break;
      }
    }
    node = n->child[slot];
  }

  const BtNode* leaf = nodes + node;
  int value = -1;
  const int nk = leaf->num_keys;
  for (int k = 0; k < nk; ++k) {
    if (leaf->keys[k] == key) {
      value = records[leaf->child[k]];
      break;
    }
  }
  result[q] = value;
}

extern "C" __global__ void btree_find_range(const BtNode* __restrict__ nodes, int height, const int* __restrict__ lo_keys,
                                            const int* __restrict__ hi_keys, int nqueries, int* __restrict__ first,
                                            int* __restrict__ count) {
  const int q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= nqueries) return;
  const int lo = lo_keys[q];
  const int hi = hi_keys[q];

  int nlo = 0, nhi = 0;
  for (int level = 0; level < height; ++level) {
    const BtNode* a = nodes + nlo;
    const BtNode* b = nodes + nhi;
    const int na = a->num_keys, nb = b->num_keys;
    int sa = na, sb = nb;
    for (int k = 0; k < BT_ORDER; ++k) {
      if (k < na && sa == na && lo < a->keys[k]) sa = k;
      if (k < nb && sb == nb && hi < b->keys[k]) sb = k;
    }
    nlo = a->child[sa];
    nhi = b->child[sb];
  }

  // Position of the first key >= lo and of the last key <= hi in leaf order.
  const BtNode* la = nodes + nlo;
  const BtNode* lb = nodes + nhi;
  int pa = la->num_keys, pb = -1;
  for (int k = 0; k < la->num_keys; ++k) {
    if (la->keys[k] >= lo) {
      pa = k;
      break;
    }
  }
  for (int k = lb->num_keys - 1; k >= 0; --k) {
    if (lb->keys[k] <= hi) {
      pb = k;
      break;
    }
  }
  const int start = la->leaf_base + pa;
  const int end = lb->leaf_base + pb;
  first[q] = start;
  count[q] = end >= start ? end - start + 1 : 0;
}
