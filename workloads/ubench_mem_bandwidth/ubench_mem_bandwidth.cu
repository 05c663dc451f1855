// Streaming read bandwidth: a grid that fills every SM (the host launches 4
// blocks of 256 threads per SM of an 80-SM V100) sums a large float array
// with a grid-stride loop and writes one sum per thread. Every warp load is
// 32 consecutive floats: one fully used 128-byte line.
//
// Each loop pass issues 4 loads (a grid stride apart) before the first add
// needs one, so a warp has 4 lines in flight instead of 1. The 4 loads are one
// asm statement: left to itself NVVM puts each add right after its load, and
// the simulator issues PTX in order, so the warp would wait on every load.
// The adds keep the sequential order s += in[tid], in[tid + stride], ...,
// which the host reproduces exactly.
extern "C" __global__ void stream_sum(const float* __restrict__ in, float* __restrict__ out, int n) {
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  const int stride = blockDim.x * gridDim.x;
  float s = 0.0f;
  int i = tid;
  for (; i + 3 * stride < n; i += 4 * stride) {
    float a, b, c, d;
    asm volatile(
        "ld.global.f32 %0, [%4];\n\t"
        "ld.global.f32 %1, [%5];\n\t"
        "ld.global.f32 %2, [%6];\n\t"
        "ld.global.f32 %3, [%7];"
        : "=f"(a), "=f"(b), "=f"(c), "=f"(d)
        : "l"(in + i), "l"(in + i + stride), "l"(in + i + 2 * stride), "l"(in + i + 3 * stride));
    s += a;
    s += b;
    s += c;
    s += d;
  }
  for (; i < n; i += stride) s += in[i];
  out[tid] = s;
}
