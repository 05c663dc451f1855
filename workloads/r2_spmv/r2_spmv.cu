// Sparse matrix-vector product y = A x after the Parboil spmv benchmark's
// JDS (jagged diagonal storage) kernel. The rows are sorted by their number
// of nonzeros, longest first (perm[r] is the original index of sorted row
// r). Jagged diagonal j holds the j-th nonzero of every row that has one:
// it starts at jds_ptr[j] and has an entry for each of the sorted rows
// 0 .. (rows with more than j nonzeros) - 1, so entry j of sorted row r is
// at jds_ptr[j] + r, and the threads of a warp read consecutive addresses.
//
// One thread per sorted row, 1-D blocks; the loop over the row's nonzeros
// runs row_len[r] times, a data-dependent trip count that differs between
// the threads of a warp where the row lengths change.
extern "C" __global__ void __launch_bounds__(192)
    r2_spmv_jds(float* __restrict__ dst, const float* __restrict__ data, const int* __restrict__ col_index,
                const int* __restrict__ perm, const float* __restrict__ x, int dim, const int* __restrict__ jds_ptr,
                const int* __restrict__ row_len) {
  const int ix = blockIdx.x * blockDim.x + threadIdx.x;
  if (ix < dim) {
    float sum = 0.0f;
    const int len = row_len[ix];
    for (int j = 0; j < len; ++j) {
      const int at = jds_ptr[j] + ix;
      sum += data[at] * x[col_index[at]];
    }
    dst[perm[ix]] = sum;
  }
}
