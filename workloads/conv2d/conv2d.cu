// 2D convolution of a single-channel image with a 5 x 5 filter held in
// constant memory (every thread of a warp reads the same tap at once: the
// constant cache's broadcast case). Zero padding at the borders; one thread
// per output pixel.
#define FILTER_RADIUS 2
#define FILTER_WIDTH (2 * FILTER_RADIUS + 1)

__constant__ float c_filter[FILTER_WIDTH * FILTER_WIDTH];

extern "C" __global__ void conv2d_5x5(const float* __restrict__ in, float* __restrict__ out, int width,
                                      int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;

  float sum = 0.0f;
#pragma unroll
  for (int fy = -FILTER_RADIUS; fy <= FILTER_RADIUS; ++fy) {
    int iy = y + fy;
#pragma unroll
    for (int fx = -FILTER_RADIUS; fx <= FILTER_RADIUS; ++fx) {
      int ix = x + fx;
      if (ix >= 0 && ix < width && iy >= 0 && iy < height) {
        sum += c_filter[(fy + FILTER_RADIUS) * FILTER_WIDTH + (fx + FILTER_RADIUS)] * in[iy * width + ix];
      }
    }
  }
  out[y * width + x] = sum;
}
