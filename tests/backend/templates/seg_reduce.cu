#include <cstdint>
// A segmented reduction over 64-bit offsets with many live 64-bit values
// (tests/backend/templates/README.md):
// each thread keeps ITEMS double partial sums and ITEMS 64-bit index sums
// (one per unrolled lane of its loop over the block's segment). Segments
// with items do the work; the block synchronises, and only they write their
// partials to shared memory, which the block then reduces.
// __launch_bounds__(128, 8) leaves 64 registers, so the partials are
// spilled across the barrier.
template <int ITEMS, int MINB>
__global__ void __launch_bounds__(128, MINB)
seg_reduce(const double* in, const int64_t* offsets, double* out, int64_t* where, int nsegs) {
  __shared__ double part[ITEMS][128];
  __shared__ int64_t ipart[ITEMS][128];
  for (int seg = blockIdx.x; seg < nsegs; seg += gridDim.x) {
    const int64_t begin = offsets[seg], end = offsets[seg + 1];
    const bool active = end > begin;
    double acc[ITEMS];
    int64_t arg[ITEMS];
    if (active) {
      // The partials start from the segment's first items (defined only here).
#pragma unroll
      for (int k = 0; k < ITEMS; ++k) {
        const int64_t i = begin + threadIdx.x + int64_t(k) * 128;
        acc[k] = i < end ? in[i] : 0.0;
        arg[k] = i < end ? i : -1;
      }
      for (int64_t i = begin + threadIdx.x + 128 * ITEMS; i < end; i += 128 * ITEMS) {
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
          const int64_t j = i + int64_t(k) * 128;
          if (j < end) {
            const double x = in[j];
            if (x > acc[k]) arg[k] = j;
            acc[k] += x;
          }
        }
      }
    }
    __syncthreads();
    if (active) {
#pragma unroll
      for (int k = 0; k < ITEMS; ++k) { part[k][threadIdx.x] = acc[k]; ipart[k][threadIdx.x] = arg[k]; }
    }
    __syncthreads();
    if (active && threadIdx.x < ITEMS) {
      double s = 0;
      int64_t a = -1;
      for (int t = 0; t < 128; ++t) { s += part[threadIdx.x][t]; a = max(a, ipart[threadIdx.x][t]); }
      out[int64_t(seg) * ITEMS + threadIdx.x] = s;
      where[int64_t(seg) * ITEMS + threadIdx.x] = a;
    }
    __syncthreads();
  }
}
template __global__ void seg_reduce<16, 8>(const double*, const int64_t*, double*, int64_t*, int);
