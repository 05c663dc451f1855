// L2 read bandwidth: a grid that fills every SM (the host launches 4 blocks of
// 256 threads per SM of an 80-SM V100) reads a 1.25 MiB float array that fits
// every configuration's L2 (2 MB on the Maxwell-like one) and sums it.
//
// The array is cut into one chunk of 1024 floats per block. A launch makes
// `passes` passes; in pass p, block b reads chunk (b + shift + p) mod gridDim,
// 4 floats per thread as one asm statement of 4 loads (4 lines in flight per
// warp; see ubench_mem_bandwidth.cu for why one statement). The host launches
// it twice: once with shift 0 and one pass, which brings the array into the
// L2, then, measured, with shift 1 and 8 passes. Blocks are dealt to SMs in
// order, so chunks b and b + 1 .. b + 8 are read by other SMs than chunk b:
// no SM reads a line it read before, and every measured load misses its L1D
// and hits the L2.
extern "C" __global__ void l2_sum(const float* __restrict__ in, float* __restrict__ out, int shift, int passes) {
  const int chunk = 4 * blockDim.x;
  float s = 0.0f;
  for (int p = 0; p < passes; ++p) {
    const int c = (blockIdx.x + shift + p) % gridDim.x;
    const float* base = in + c * chunk + threadIdx.x;
    float a, b, d, e;
    asm volatile(
        "ld.global.f32 %0, [%4];\n\t"
        "ld.global.f32 %1, [%5];\n\t"
        "ld.global.f32 %2, [%6];\n\t"
        "ld.global.f32 %3, [%7];"
        : "=f"(a), "=f"(b), "=f"(d), "=f"(e)
        : "l"(base), "l"(base + blockDim.x), "l"(base + 2 * blockDim.x), "l"(base + 3 * blockDim.x));
    s += a;
    s += b;
    s += d;
    s += e;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
