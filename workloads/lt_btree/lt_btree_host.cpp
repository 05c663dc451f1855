#include <algorithm>
#include <climits>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr int kFanout = 32;  // FANOUT in the kernel

Check runBtree(rt::Device& dev, Size size) {
  // Small: 65536 records, 2048 queries (one warp each: 256 blocks of 256);
  // Large: 4 M records, 1 M queries. Leaves and inner nodes are filled to 24
  // of their 32 slots, as after a bulk load with room to grow.
  const int nrecords = size == Size::Small ? 65536 : 1 << 22;
  const int nqueries = size == Size::Small ? 2048 : 1 << 20;
  const int fill = 24;
  Rng rng(39);
  // Distinct sorted keys: random gaps of 1..16.
  std::vector<int> rkeys(nrecords), rvalues(nrecords);
  int key = 0;
  for (int i = 0; i < nrecords; ++i) {
    key += 1 + int(rng.below(16));
    rkeys[i] = key;
    rvalues[i] = int(rng.below(1 << 30));
  }
  // Bottom-up bulk load. Unused slots hold INT_MAX (never <= a query, never
  // equal to one); an inner node's slot i holds the smallest key below
  // child i, slot 0 INT_MIN.
  std::vector<int> keys, child, values;
  auto newNode = [&]() {
    keys.insert(keys.end(), kFanout, INT_MAX);
    child.insert(child.end(), kFanout, -1);
    values.insert(values.end(), kFanout, -1);
    return int(keys.size() / kFanout) - 1;
  };
  std::vector<int> level, level_min;  // the nodes of the level being built and their smallest keys
  for (int i = 0; i < nrecords; i += fill) {
    const int node = newNode();
    for (int s = 0; s < fill && i + s < nrecords; ++s) {
      keys[node * kFanout + s] = rkeys[i + s];
      values[node * kFanout + s] = rvalues[i + s];
    }
    level.push_back(node);
    level_min.push_back(rkeys[i]);
  }
  int height = 0;
  while (level.size() > 1) {
    std::vector<int> up, up_min;
    for (size_t i = 0; i < level.size(); i += fill) {
      const int node = newNode();
      for (size_t s = 0; s < size_t(fill) && i + s < level.size(); ++s) {
        keys[node * kFanout + s] = s == 0 ? INT_MIN : level_min[i + s];
        child[node * kFanout + s] = level[i + s];
      }
      up.push_back(node);
      up_min.push_back(level_min[i]);
    }
    level.swap(up);
    level_min.swap(up_min);
    ++height;
  }
  const int root = level[0];
  // Half the queries are stored keys, half fall in the gaps or outside.
  std::vector<int> queries(nqueries), want(nqueries);
  for (int q = 0; q < nqueries; ++q) {
    if (q % 2 == 0) {
      queries[q] = rkeys[rng.below(nrecords)];
    } else {
      queries[q] = int(rng.below(uint32_t(key) + 64)) - 32;
    }
    const auto it = std::lower_bound(rkeys.begin(), rkeys.end(), queries[q]);
    want[q] = it != rkeys.end() && *it == queries[q] ? rvalues[it - rkeys.begin()] : -1;
  }

  DeviceBuffer d_keys(dev, keys), d_child(dev, child), d_values(dev, values), d_queries(dev, queries),
      d_result(dev, size_t(nqueries) * sizeof(int));
  const uint32_t block = 256;
  dev.launch("lt_btree", {ceilDiv(uint64_t(nqueries) * kFanout, block)}, {block},
             rt::KernelArgs()
                 .ptr(d_keys.addr())
                 .ptr(d_child.addr())
                 .ptr(d_values.addr())
                 .i32(root)
                 .i32(height)
                 .ptr(d_queries.addr())
                 .i32(nqueries)
                 .ptr(d_result.addr()));
  const long found = std::count_if(want.begin(), want.end(), [](int v) { return v >= 0; });
  Check c = compareExact(d_result.download<int>(nqueries), want,
                         fmt::format("query results ({} records, {} nodes, {} inner levels; binary search on the host)",
                                     nrecords, keys.size() / kFanout, height));
  if (c.passed) c.detail += fmt::format("; {} of {} queries found", found, nqueries);
  return c;
}

}  // namespace

RFSIM_WORKLOAD("lt_btree", "B+tree point queries of fan-out 32, one warp per query walking root to leaf (LTRF suite)",
               "workloads/lt_btree/lt_btree.ptx", {"ltrf", "reginsens", "memory", "vote"}, runBtree);

}  // namespace rfsim::workloads
