#include <algorithm>
#include <cmath>
#include <numeric>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

Check runR2Spmv(rt::Device& dev, Size size) {
  // Small: 49152 rows and columns (256 blocks of 192 threads), 1 to 47
  // nonzeros a row, ~9 on average; Large: 393216 rows (2048 blocks), 1 to 95
  // nonzeros, ~17 on average. Most rows are short and a few long, as in
  // Parboil's matrices, so warps diverge on the loop's trip count.
  const int dim = size == Size::Small ? 49152 : 393216;
  const int max_len = size == Size::Small ? 47 : 95;  // the longest row possible
  Rng rng(202);

  // Row lengths: a short base plus, for one row in eight, a long tail.
  std::vector<int> len(dim);
  for (auto& l : len) {
    l = 1 + int(rng.below(uint32_t(max_len / 4)));
    if (rng.below(8) == 0) l += int(rng.below(uint32_t(max_len - max_len / 4)));
  }
  // Column indices mostly near the diagonal (banded, like a mesh), some
  // anywhere: the gathers from x are partly coalesced.
  std::vector<std::vector<int>> cols(dim);
  std::vector<std::vector<float>> vals(dim);
  for (int r = 0; r < dim; ++r) {
    for (int j = 0; j < len[r]; ++j) {
      int c = rng.below(4) == 0 ? int(rng.below(uint32_t(dim))) : r + int(rng.below(129)) - 64;
      cols[r].push_back(std::clamp(c, 0, dim - 1));
      vals[r].push_back(rng.uniform(-1.0f, 1.0f));
    }
  }
  std::vector<float> x(dim);
  for (auto& v : x) v = rng.uniform(-1.0f, 1.0f);

  // JDS: sort the rows by length, longest first (stable: ties keep their order).
  std::vector<int> perm(dim);
  std::iota(perm.begin(), perm.end(), 0);
  std::stable_sort(perm.begin(), perm.end(), [&](int p, int q) { return len[p] > len[q]; });
  const int diagonals = len[perm[0]];
  std::vector<int> jds_ptr(diagonals), row_len(dim);
  for (int r = 0; r < dim; ++r) row_len[r] = len[perm[r]];
  std::vector<float> data;
  std::vector<int> col_index;
  for (int j = 0; j < diagonals; ++j) {
    jds_ptr[j] = int(data.size());
    for (int r = 0; r < dim && row_len[r] > j; ++r) {
      data.push_back(vals[perm[r]][j]);
      col_index.push_back(cols[perm[r]][j]);
    }
  }

  DeviceBuffer d_dst(dev, dim * sizeof(float)), d_data(dev, data), d_col(dev, col_index), d_perm(dev, perm),
      d_x(dev, x), d_ptr(dev, jds_ptr), d_len(dev, row_len);
  const uint32_t block = 192;
  dev.launch("r2_spmv_jds", {ceilDiv(dim, block)}, {block},
             rt::KernelArgs()
                 .ptr(d_dst.addr())
                 .ptr(d_data.addr())
                 .ptr(d_col.addr())
                 .ptr(d_perm.addr())
                 .ptr(d_x.addr())
                 .i32(dim)
                 .ptr(d_ptr.addr())
                 .ptr(d_len.addr()));

  std::vector<double> ref(dim);
  double worst_bound = 0.0;  // max over rows of len * sum |a x|
  for (int r = 0; r < dim; ++r) {
    double s = 0.0, mag = 0.0;
    for (int j = 0; j < len[r]; ++j) {
      const double prod = double(vals[r][j]) * x[cols[r][j]];
      s += prod;
      mag += std::fabs(prod);
    }
    ref[r] = s;
    worst_bound = std::max(worst_bound, len[r] * mag);
  }
  // A row's sum is len multiply-adds in float, in order: by the recursive
  // summation bound |error| <= len u sum |a x| (u = 2^-24; a fused
  // multiply-add rounds once, separate ones twice: 2 len u covers both),
  // taken over the worst row.
  const double atol = 2.0 * std::ldexp(1.0, -24) * worst_bound;
  return compareFloats(d_dst.download<float>(dim), ref, 0.0, atol,
                       fmt::format("rows ({} nonzeros, {} jagged diagonals)", data.size(), diagonals));
}

}  // namespace

RFSIM_WORKLOAD("r2_spmv",
               "Parboil spmv (R2D2 suite): JDS sparse matrix-vector product, one thread per row, data-dependent "
               "trip counts",
               "workloads/r2_spmv/r2_spmv.ptx", {"r2d2", "parboil", "memory", "divergence"}, runR2Spmv);

}  // namespace rfsim::workloads
