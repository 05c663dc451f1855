// Neighbourhood image filters over a 16x16 shared tile with a one-pixel halo
// (clamped at the image border):
//   median3x3  3x3 median of an 8-bit image: the nine values in registers and
//              the classic 19-exchange min/max network that leaves the
//              median in the middle;
//   sobel3x3   Sobel edge magnitude of a float image, both gradients from the
//              eight neighbours, sqrt of the sum of squares, and a
//              thresholded edge mask as a second output.

#define IF_B 16

__device__ __forceinline__ void sort2(float& a, float& b) {
  const float lo = fminf(a, b), hi = fmaxf(a, b);
  a = lo;
  b = hi;
}

extern "C" __global__ void median3x3(const unsigned char* __restrict__ in, unsigned char* __restrict__ out, int w,
                                     int h) {
  __shared__ unsigned char t[IF_B + 2][IF_B + 2];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x = blockIdx.x * IF_B + tx, y = blockIdx.y * IF_B + ty;

  for (int e = ty * IF_B + tx; e < (IF_B + 2) * (IF_B + 2); e += IF_B * IF_B) {
    const int r = e / (IF_B + 2), c = e % (IF_B + 2);
    const int gx = min(max((int)(blockIdx.x * IF_B) + c - 1, 0), w - 1);
    const int gy = min(max((int)(blockIdx.y * IF_B) + r - 1, 0), h - 1);
    t[r][c] = in[gy * w + gx];
  }
  __syncthreads();
  if (x >= w || y >= h) return;

  float p0 = t[ty][tx], p1 = t[ty][tx + 1], p2 = t[ty][tx + 2];
  float p3 = t[ty + 1][tx], p4 = t[ty + 1][tx + 1], p5 = t[ty + 1][tx + 2];
  float p6 = t[ty + 2][tx], p7 = t[ty + 2][tx + 1], p8 = t[ty + 2][tx + 2];
  sort2(p1, p2); sort2(p4, p5); sort2(p7, p8);
  sort2(p0, p1); sort2(p3, p4); sort2(p6, p7);
  sort2(p1, p2); sort2(p4, p5); sort2(p7, p8);
  sort2(p0, p3); sort2(p5, p8); sort2(p4, p7);
  sort2(p3, p6); sort2(p1, p4); sort2(p2, p5);
  sort2(p4, p7); sort2(p4, p2); sort2(p6, p4);
  sort2(p4, p2);
  out[y * w + x] = (unsigned char)p4;
}

extern "C" __global__ void sobel3x3(const float* __restrict__ in, float* __restrict__ mag,
                                    unsigned char* __restrict__ edges, int w, int h, float scale, float threshold) {
  __shared__ float t[IF_B + 2][IF_B + 3];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x = blockIdx.x * IF_B + tx, y = blockIdx.y * IF_B + ty;

  for (int e = ty * IF_B + tx; e < (IF_B + 2) * (IF_B + 2); e += IF_B * IF_B) {
    const int r = e / (IF_B + 2), c = e % (IF_B + 2);
    const int gx = min(max((int)(blockIdx.x * IF_B) + c - 1, 0), w - 1);
    const int gy = min(max((int)(blockIdx.y * IF_B) + r - 1, 0), h - 1);
    t[r][c] = in[gy * w + gx];
  }
  __syncthreads();
  if (x >= w || y >= h) return;

  const float a = t[ty][tx], b = t[ty][tx + 1], c = t[ty][tx + 2];
  const float d = t[ty + 1][tx], f = t[ty + 1][tx + 2];
  const float g = t[ty + 2][tx], hh = t[ty + 2][tx + 1], i = t[ty + 2][tx + 2];
  const float gxv = (c + 2.0f * f + i) - (a + 2.0f * d + g);
  const float gyv = (g + 2.0f * hh + i) - (a + 2.0f * b + c);
  const float m = scale * sqrtf(gxv * gxv + gyv * gyv);
  mag[y * w + x] = m;
  edges[y * w + x] = m > threshold ? 255 : 0;
}
