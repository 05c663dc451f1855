// Separable 2-D convolution, the row pass as tuned image pipelines write
// it: a radius-8 filter (17 taps) in constant memory, each block stages its
// tile plus one halo block on each side in shared memory, every thread
// produces several outputs, and the tap loop is unrolled.
//   conv_rows  16x4 threads, 8 outputs per thread along x.
// The column pass is a workload with a CPU reference (workloads/conv_columns),
// so the comparison counts it there.
// Image width/height are multiples of the tiles; halos outside the image
// read as zero.

#define KR 8
#define ROW_BX 16
#define ROW_BY 4
#define ROW_STEPS 8
#define ROW_HALO 1

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
