// Saturating histogram after the Parboil histo benchmark: an image of
// 10-bit values (0 .. 1023, one unsigned short a pixel) is binned into 1024
// bins, and the final histogram saturates each bin at 255, an 8-bit count.
//
// r2_histo_main: a 2-D grid of 2-D blocks of 32 x 8 threads; block (bx, by)
// covers 32 columns of the image and a strip of rows_per_block rows, each
// thread a column walking down the strip in steps of 8 rows. The block
// counts into two sub-histograms in shared memory, the even warps into one
// and the odd warps into the other, so fewer warps contend for the same
// bin's atomics; then it sums the sub-histograms and adds its nonzero counts
// to the global 32-bit histogram with one atomicAdd per bin.
// r2_histo_final: one thread per bin, the 32-bit count saturated to 8 bits.
#define BINS 1024
#define SUBS 2  // sub-histograms per block of 256 threads (8 warps): 8 KB of shared memory

extern "C" __global__ void __launch_bounds__(256)
    r2_histo_main(const unsigned short* __restrict__ img, int width, int height, int rows_per_block,
                  unsigned int* __restrict__ bins) {
  __shared__ unsigned int sub[SUBS][BINS];
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  const int nthreads = blockDim.x * blockDim.y;
  for (int b = tid; b < SUBS * BINS; b += nthreads) (&sub[0][0])[b] = 0;
  __syncthreads();

  unsigned int* mine = sub[(tid >> 5) % SUBS];
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y_end = min((blockIdx.y + 1) * rows_per_block, height);
  if (x < width)
    for (int y = blockIdx.y * rows_per_block + threadIdx.y; y < y_end; y += blockDim.y)
      atomicAdd(&mine[img[y * width + x]], 1u);
  __syncthreads();

  for (int b = tid; b < BINS; b += nthreads) {
    unsigned int count = 0;
#pragma unroll
    for (int s = 0; s < SUBS; ++s) count += sub[s][b];
    if (count) atomicAdd(&bins[b], count);
  }
}

extern "C" __global__ void __launch_bounds__(256)
    r2_histo_final(const unsigned int* __restrict__ bins, unsigned char* __restrict__ out, int nbins) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < nbins) out[i] = (unsigned char)min(bins[i], 255u);
}
