// The column pass of a separable convolution, modelled on the image kernel
// of the RegDem paper's suite (CUDA samples' convolutionSeparable, Table 1:
// 128 threads per block). A block of 16 x 8 threads stages a tile of
// STEPS + 2 halo rows of 8 per column in shared memory, then each thread
// filters STEPS outputs down its column with a 17-tap kernel held in
// constant memory.
#define RADIUS 8
#define TAPS (2 * RADIUS + 1)
#define BX 16
#define BY 8
#define STEPS 8
#define HALO 1

__constant__ float taps[TAPS];

extern "C" __global__ void __launch_bounds__(BX * BY)
conv_columns(float* dst, const float* src, int width, int height, int pitch) {
  __shared__ float tile[BX][(STEPS + 2 * HALO) * BY + 1];
  const int x = blockIdx.x * BX + threadIdx.x;
  const int y0 = (blockIdx.y * STEPS - HALO) * BY + threadIdx.y;
  const float* in = src + y0 * pitch + x;
  float* out = dst + y0 * pitch + x;
  // The tile: the upper halo, the body and the lower halo (zero outside).
#pragma unroll
  for (int s = 0; s < HALO; ++s)
    tile[threadIdx.x][threadIdx.y + s * BY] = y0 + s * BY >= 0 ? in[s * BY * pitch] : 0.0f;
#pragma unroll
  for (int s = HALO; s < HALO + STEPS; ++s) tile[threadIdx.x][threadIdx.y + s * BY] = in[s * BY * pitch];
#pragma unroll
  for (int s = HALO + STEPS; s < 2 * HALO + STEPS; ++s)
    tile[threadIdx.x][threadIdx.y + s * BY] = y0 + s * BY < height ? in[s * BY * pitch] : 0.0f;
  __syncthreads();
#pragma unroll
  for (int s = HALO; s < HALO + STEPS; ++s) {
    float acc = 0.0f;
#pragma unroll
    for (int k = -RADIUS; k <= RADIUS; ++k) acc += taps[RADIUS - k] * tile[threadIdx.x][threadIdx.y + s * BY + k];
    out[s * BY * pitch] = acc;
  }
}
