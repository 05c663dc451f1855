// y = A * x for a sparse matrix in CSR form, the scalar kernel: one thread per
// row (Bell and Garland, "Efficient Sparse Matrix-Vector Multiplication on
// CUDA", 2008). Row lengths vary, so threads of a warp diverge in their loop
// trip counts, and the gather from x is irregular.
extern "C" __global__ void spmv_csr_scalar(int num_rows, const int* __restrict__ row_offsets,
                                           const int* __restrict__ columns, const float* __restrict__ values,
                                           const float* __restrict__ x, float* __restrict__ y) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < num_rows) {
    float dot = 0.0f;
    int begin = row_offsets[row];
    int end = row_offsets[row + 1];
    for (int j = begin; j < end; ++j) {
      dot += values[j] * x[columns[j]];
    }
    y[row] = dot;
  }
}
