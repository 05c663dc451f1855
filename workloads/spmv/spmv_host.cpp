#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

Check runSpmv(rt::Device& dev, Size size) {
  const int rows = size == Size::Small ? 5000 : 1 << 20;
  const int cols = rows;
  // Row lengths 0..24 (mean 12), uniformly spread: neighbouring threads loop
  // different numbers of times. Columns are random, so the x gather is
  // irregular.
  Rng rng(10);
  std::vector<int> row_offsets{0}, columns;
  std::vector<float> values;
  row_offsets.reserve(rows + 1);
  for (int r = 0; r < rows; ++r) {
    int len = static_cast<int>(rng.below(25));
    for (int k = 0; k < len; ++k) {
      columns.push_back(static_cast<int>(rng.below(cols)));
      values.push_back(rng.uniform(-1.0f, 1.0f));
    }
    row_offsets.push_back(static_cast<int>(columns.size()));
  }
  std::vector<float> x(cols);
  for (auto& v : x) v = rng.uniform(-1.0f, 1.0f);

  DeviceBuffer d_rows(dev, row_offsets), d_cols(dev, columns), d_vals(dev, values), d_x(dev, x),
      d_y(dev, rows * sizeof(float));
  const uint32_t block = 256;
  dev.launch("spmv_csr_scalar", {ceilDiv(rows, block)}, {block},
             rt::KernelArgs()
                 .i32(rows)
                 .ptr(d_rows.addr())
                 .ptr(d_cols.addr())
                 .ptr(d_vals.addr())
                 .ptr(d_x.addr())
                 .ptr(d_y.addr()));

  std::vector<double> ref(rows, 0.0);
  for (int r = 0; r < rows; ++r) {
    for (int j = row_offsets[r]; j < row_offsets[r + 1]; ++j) ref[r] += double(values[j]) * x[columns[j]];
  }
  // At most 24 float multiply-adds of terms in [-1, 1] per row.
  return compareFloats(d_y.download<float>(rows), ref, 1e-5, 1e-5,
                       fmt::format("rows ({} nonzeros)", values.size()));
}

}  // namespace

RFSIM_WORKLOAD("spmv", "sparse matrix-vector product, CSR, one thread per row", "workloads/spmv/spmv.ptx",
               {"memory", "divergence"}, runSpmv);

}  // namespace rfsim::workloads
