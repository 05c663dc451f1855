#include <array>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr int kDepth = 7;  // the rows each thread searches (DEPTH in the kernel)

struct Prefix {
  uint32_t cols, left, right;
};

// Every valid placement of queens on the first `rows` rows, in the order of
// a depth-first search taking the lowest free column first.
void prefixes(int n, int rows, int row, uint32_t cols, uint32_t left, uint32_t right, std::vector<Prefix>& out) {
  const uint32_t full = (1u << n) - 1u;
  if (row == rows) {
    out.push_back({cols, left, right});
    return;
  }
  for (uint32_t free = full & ~(cols | left | right); free; free &= free - 1) {
    const uint32_t bit = free & (0u - free);
    prefixes(n, rows, row + 1, cols | bit, ((left | bit) << 1) & full, (right | bit) >> 1, out);
  }
}

// Completions of the remaining rows by plain recursion over the rows,
// independent of the kernel's unrolled levels and its population count.
uint32_t complete(uint32_t full, uint32_t cols, uint32_t left, uint32_t right) {
  if (cols == full) return 1;
  uint32_t n = 0;
  for (uint32_t free = full & ~(cols | left | right); free; free &= free - 1) {
    const uint32_t bit = free & (0u - free);
    n += complete(full, cols | bit, ((left | bit) << 1) & full, (right | bit) >> 1);
  }
  return n;
}

Check runNqueens(rt::Device& dev, Size size) {
  // Small: 12 queens, 16 852 prefixes of 5 rows (132 blocks of 128); Large:
  // 14 queens, prefixes of 7 rows (about 1 M threads).
  const int n = size == Size::Small ? 12 : 14;
  std::vector<Prefix> pre;
  prefixes(n, n - kDepth, 0, 0, 0, 0, pre);
  const int np = int(pre.size());
  std::vector<uint32_t> words;
  words.reserve(3 * pre.size());
  for (const Prefix& p : pre) words.insert(words.end(), {p.cols, p.left, p.right});

  DeviceBuffer d_prefixes(dev, words), d_counts(dev, pre.size() * sizeof(uint32_t));
  const uint32_t block = 128;
  dev.launch("lt_nqueens", {ceilDiv(np, block)}, {block},
             rt::KernelArgs().ptr(d_prefixes.addr()).ptr(d_counts.addr()).i32(np).i32(n));

  const uint32_t full = (1u << n) - 1u;
  std::vector<uint32_t> want(pre.size());
  uint64_t total = 0;
  for (size_t i = 0; i < pre.size(); ++i) {
    want[i] = complete(full, pre[i].cols, pre[i].left, pre[i].right);
    total += want[i];
  }
  // The number of solutions is known (OEIS A000170): the reference itself is checked.
  static const std::array<uint64_t, 17> kSolutions = {1, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712,
                                                      365596, 2279184, 14772512};
  if (total != kSolutions[n]) {
    return Check{false, fmt::format("host reference counts {} solutions of {} queens, expected {}", total, n,
                                    kSolutions[n])};
  }
  Check c = compareExact(d_counts.download<uint32_t>(pre.size()), want,
                         fmt::format("prefix completion counts ({} queens, {} prefixes of {} rows)", n, np, n - kDepth));
  if (c.passed) c.detail += fmt::format("; {} solutions", total);
  return c;
}

}  // namespace

RFSIM_WORKLOAD("lt_nqueens",
               "n-queens counting: per-thread depth-first search over bitmasks in registers, 7 unrolled rows (LTRF suite)",
               "workloads/lt_nqueens/lt_nqueens.ptx", {"ltrf", "regsens", "divergence", "compute"}, runNqueens);

}  // namespace rfsim::workloads
