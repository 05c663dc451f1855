// Separable 2-D convolution, the row and column passes as tuned image
// pipelines write them: a radius-8 filter (17 taps) in constant memory, each
// block stages its tile plus one halo block on each side in shared memory,
// every thread produces several outputs, and the tap loop is unrolled.
//   conv_rows  16x4 threads, 8 outputs per thread along x;
//   conv_cols  16x8 threads, 8 outputs per thread along y.
// Image width/height are multiples of the tiles; halos outside the image
// read as zero.

#define KR 8
#define ROW_BX 16
#define ROW_BY 4
#define ROW_STEPS 8
#define ROW_HALO 1
#define COL_BX 16
#define COL_BY 8
#define COL_STEPS 8
#define COL_HALO 1

__constant__ float c_taps[2 * KR + 1];

extern "C" __global__ void conv_rows(float* __restrict__ dst, const float* __restrict__ src, int width, int height,
                                     int pitch) {
  __shared__ float s[ROW_BY][(ROW_STEPS + 2 * ROW_HALO) * ROW_BX];
  const int x0 = (blockIdx.x * ROW_STEPS - ROW_HALO) * ROW_BX + threadIdx.x;
  const int y = blockIdx.y * ROW_BY + threadIdx.y;
  const float* in = src + y * pitch + x0;
  float* out = dst + y * pitch + x0;

#pragma unroll
  for (int i = ROW_HALO; i < ROW_HALO + ROW_STEPS; ++i) s[threadIdx.y][threadIdx.x + i * ROW_BX] = in[i * ROW_BX];
#pragma unroll
  for (int i = 0; i < ROW_HALO; ++i) s[threadIdx.y][threadIdx.x + i * ROW_BX] = x0 + i * ROW_BX >= 0 ? in[i * ROW_BX] : 0.0f;
#pragma unroll
  for (int i = ROW_HALO + ROW_STEPS; i < ROW_HALO + ROW_STEPS + ROW_HALO; ++i)
    s[threadIdx.y][threadIdx.x + i * ROW_BX] = x0 + i * ROW_BX < width ? in[i * ROW_BX] : 0.0f;
  __syncthreads();

#pragma unroll
  for (int i = ROW_HALO; i < ROW_HALO + ROW_STEPS; ++i) {
    float sum = 0.0f;
#pragma unroll
    for (int j = -KR; j <= KR; ++j) sum += c_taps[KR - j] * s[threadIdx.y][threadIdx.x + i * ROW_BX + j];
    out[i * ROW_BX] = sum;
  }
}

extern "C" __global__ void conv_cols(float* __restrict__ dst, const float* __restrict__ src, int width, int height,
                                     int pitch) {
  __shared__ float s[COL_BX][(COL_STEPS + 2 * COL_HALO) * COL_BY + 1];
  const int x = blockIdx.x * COL_BX + threadIdx.x;
  const int y0 = (blockIdx.y * COL_STEPS - COL_HALO) * COL_BY + threadIdx.y;
  const float* in = src + y0 * pitch + x;
  float* out = dst + y0 * pitch + x;

#pragma unroll
  for (int i = COL_HALO; i < COL_HALO + COL_STEPS; ++i) s[threadIdx.x][threadIdx.y + i * COL_BY] = in[i * COL_BY * pitch];
#pragma unroll
  for (int i = 0; i < COL_HALO; ++i)
    s[threadIdx.x][threadIdx.y + i * COL_BY] = y0 + i * COL_BY >= 0 ? in[i * COL_BY * pitch] : 0.0f;
#pragma unroll
  for (int i = COL_HALO + COL_STEPS; i < COL_HALO + COL_STEPS + COL_HALO; ++i)
    s[threadIdx.x][threadIdx.y + i * COL_BY] = y0 + i * COL_BY < height ? in[i * COL_BY * pitch] : 0.0f;
  __syncthreads();

#pragma unroll
  for (int i = COL_HALO; i < COL_HALO + COL_STEPS; ++i) {
    float sum = 0.0f;
#pragma unroll
    for (int j = -KR; j <= KR; ++j) sum += c_taps[KR - j] * s[threadIdx.x][threadIdx.y + i * COL_BY + j];
    out[i * COL_BY * pitch] = sum;
  }
}
